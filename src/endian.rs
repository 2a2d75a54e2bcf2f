//! Byte order of multi-byte element components.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize};

use crate::{Error, MetadataError};

/// The byte order of the `bytes` codec's `endian` configuration.
///
/// Serializes as Zarr writes it, `"little"` or `"big"`, and parses only those two strings.
///
/// # Examples
///
/// ```
/// use zarr_bytes::Endian;
///
/// assert_eq!(serde_json::to_string(&Endian::Big).unwrap(), r#""big""#);
/// assert_eq!(Endian::Little.to_string(), "little");
/// assert!(Endian::NATIVE == Endian::Little || Endian::NATIVE == Endian::Big);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Endian {
    /// Least significant byte first.
    Little,
    /// Most significant byte first.
    Big,
}

impl Endian {
    /// The byte order of the machine this code runs on.
    pub const NATIVE: Endian = if cfg!(target_endian = "big") {
        Endian::Big
    } else {
        Endian::Little
    };

    /// The Zarr name of this byte order: `"little"` or `"big"`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Endian::Little => "little",
            Endian::Big => "big",
        }
    }
}

impl fmt::Display for Endian {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

impl FromStr for Endian {
    type Err = Error;

    /// Parse exactly `"little"` or `"big"`.
    fn from_str(s: &str) -> Result<Self, Error> {
        match s {
            "little" => Ok(Endian::Little),
            "big" => Ok(Endian::Big),
            other => Err(MetadataError::InvalidEndian {
                value: other.into(),
            }
            .into()),
        }
    }
}

impl<'de> Deserialize<'de> for Endian {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let s = String::deserialize(deserializer)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}
