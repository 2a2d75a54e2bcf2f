//! Byte order of multi-byte element components.

use std::fmt;

use serde::{Deserialize, Serialize};

/// The byte order of the `bytes` codec's `endian` configuration.
///
/// Serializes as Zarr writes it: `"little"` or `"big"`.
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
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
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
