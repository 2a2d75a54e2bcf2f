//! What the example reads from `zarr.json`, and the chunk keys it names.

use serde_json::Value;
use zarr_bytes::{ChunkGrid, DataType, DynArray};

use crate::chain::{Chain, Scope};
use crate::store::Store;

pub struct Metadata {
    pub json: Value,
    pub shape: Vec<usize>,
    pub data_type: DataType,
    pub chunk_shape: Vec<usize>,
    /// `true` for the `default` encoding (keys start with `c`), `false` for `v2`.
    default_keys: bool,
    separator: String,
    pub chain: Chain,
}

fn lengths(value: &Value, name: &str) -> Result<Vec<usize>, String> {
    let bad = || format!("field `{name}` must be a list of non-negative integers");
    let items = value.as_array().ok_or_else(bad)?;
    items
        .iter()
        .map(|v| {
            v.as_u64()
                .and_then(|n| usize::try_from(n).ok())
                .ok_or_else(bad)
        })
        .collect()
}

impl Metadata {
    pub async fn read(store: &Store) -> Result<Metadata, String> {
        let name = store.name("zarr.json");
        let Some(text) = store.get("zarr.json").await? else {
            let missing = store.not_found("zarr.json").await;
            return Err(format!("{missing}: not a Zarr v3 array"));
        };
        Self::parse(&text).map_err(|e| format!("{name}: {e}"))
    }

    fn parse(text: &[u8]) -> Result<Metadata, String> {
        let json: Value =
            serde_json::from_slice(text).map_err(|e| format!("malformed JSON: {e}"))?;
        let field = |name: &str| json.get(name).ok_or(format!("missing field `{name}`"));
        let at = |name: &str, what: String| format!("field `{name}`: {what}");

        if field("zarr_format")? != 3 {
            return Err(at("zarr_format", "only Zarr format 3 is supported".into()));
        }
        if field("node_type")? != "array" {
            return Err(at("node_type", "not an array".into()));
        }
        let shape = lengths(field("shape")?, "shape")?;
        let data_type: DataType = serde_json::from_value(field("data_type")?.clone())
            .map_err(|e| at("data_type", e.to_string()))?;

        let grid = field("chunk_grid")?;
        if grid.get("name") != Some(&Value::from("regular")) {
            return Err(at(
                "chunk_grid",
                format!("unsupported chunk grid {grid}: only \"regular\""),
            ));
        }
        let chunk_shape = grid
            .pointer("/configuration/chunk_shape")
            .ok_or_else(|| at("chunk_grid", "missing configuration.chunk_shape".into()))?;
        let chunk_shape = lengths(chunk_shape, "chunk_grid.configuration.chunk_shape")?;
        if chunk_shape.len() != shape.len() || chunk_shape.contains(&0) {
            return Err(at(
                "chunk_grid",
                format!("chunk shape {chunk_shape:?} does not fit shape {shape:?}"),
            ));
        }

        let keys = field("chunk_key_encoding")?;
        let default_keys = match keys.get("name").and_then(Value::as_str) {
            Some("default") => true,
            Some("v2") => false,
            _ => {
                return Err(at(
                    "chunk_key_encoding",
                    format!("unsupported encoding {keys}"),
                ));
            }
        };
        let separator = match keys.pointer("/configuration/separator") {
            None => if default_keys { "/" } else { "." }.to_string(),
            Some(Value::String(s)) if s == "/" || s == "." => s.clone(),
            Some(other) => {
                return Err(at(
                    "chunk_key_encoding",
                    format!("unsupported separator {other}"),
                ));
            }
        };

        // Checked here so that a bad fill value is named as such, not as a codec's error.
        let fill_value = field("fill_value")?;
        DynArray::full(&data_type, &[], fill_value).map_err(|e| at("fill_value", e.to_string()))?;
        let scope = Scope {
            data_type: &data_type,
            fill_value,
            ndim: shape.len(),
        };
        let chain = Chain::parse(field("codecs")?, &scope).map_err(|e| at("codecs", e))?;
        if json
            .get("storage_transformers")
            .and_then(Value::as_array)
            .is_some_and(|t| !t.is_empty())
        {
            return Err(at(
                "storage_transformers",
                "storage transformers are not supported".into(),
            ));
        }
        Ok(Metadata {
            json,
            shape,
            data_type,
            chunk_shape,
            default_keys,
            separator,
            chain,
        })
    }

    pub fn fill_value(&self) -> &Value {
        &self.json["fill_value"]
    }

    /// The array's chunk grid.
    pub fn grid(&self) -> Result<ChunkGrid, String> {
        ChunkGrid::new(&self.shape, &self.chunk_shape).map_err(|e| e.to_string())
    }

    pub fn chunk_key(&self, index: &[usize]) -> String {
        let mut parts: Vec<String> = index.iter().map(usize::to_string).collect();
        if self.default_keys {
            parts.insert(0, "c".into());
        } else if parts.is_empty() {
            parts.push("0".into());
        }
        parts.join(&self.separator)
    }
}
