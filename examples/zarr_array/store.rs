//! Where an array lives: an `object_store` store and the array's prefix in it, `zarr.json`
//! and the chunks under their keys below the prefix. A location is a path or a `file://`
//! URL, both the local file system; any other store is one more way to build the pair from
//! a URL, the rest of the example unchanged.

use std::path::{Component, PathBuf};
use std::sync::Arc;

use object_store::ObjectStore;
use object_store::path::Path;
use url::Url;

pub struct Store {
    objects: Arc<dyn ObjectStore>,
    prefix: Path,
    /// The location as given, to name keys in messages.
    location: String,
}

impl Store {
    /// The array at `location`: a directory's path, or a `file://` URL.
    pub fn open(location: &str) -> Result<Store, String> {
        let failed = |e: String| format!("{location}: {e}");
        let url = if location.contains("://") {
            Url::parse(location).map_err(|e| failed(e.to_string()))?
        } else {
            let dir = absolute(location).map_err(|e| failed(e.to_string()))?;
            Url::from_directory_path(&dir).map_err(|()| failed("not an absolute path".into()))?
        };
        if url.scheme() != "file" {
            return Err(failed(format!(
                "{}:// URLs are not supported: a path or a file:// URL",
                url.scheme()
            )));
        }
        let (objects, prefix) = object_store::parse_url(&url).map_err(|e| failed(cause(&e)))?;
        Ok(Store::new(Arc::from(objects), prefix, location))
    }

    /// The array under `prefix` in `objects`, named `location` in messages.
    pub fn new(objects: Arc<dyn ObjectStore>, prefix: Path, location: &str) -> Store {
        Store {
            objects,
            prefix,
            location: location.to_string(),
        }
    }

    /// The location as given.
    pub fn location(&self) -> &str {
        &self.location
    }

    /// How messages name `key`: below the location as given.
    pub fn name(&self, key: &str) -> String {
        format!("{}/{key}", self.location.trim_end_matches('/'))
    }

    /// The store's path of `key`: a key with `/` separators is nested.
    fn path(&self, key: &str) -> Path {
        key.split('/')
            .fold(self.prefix.clone(), |path, part| path.child(part))
    }

    /// The bytes stored under `key`, or `None` if there are none (a missing chunk).
    pub async fn get(&self, key: &str) -> Result<Option<Vec<u8>>, String> {
        let found = match self.objects.get(&self.path(key)).await {
            Ok(found) => found,
            Err(object_store::Error::NotFound { .. }) => return Ok(None),
            Err(e) => return Err(self.failed(key, &e)),
        };
        let bytes = found.bytes().await.map_err(|e| self.failed(key, &e))?;
        Ok(Some(bytes.into()))
    }

    /// Store `bytes` under `key` whole: the local store writes a temporary file and renames
    /// it, so a failure leaves no part of a chunk behind.
    pub async fn put(&self, key: &str, bytes: Vec<u8>) -> Result<(), String> {
        let put = self.objects.put(&self.path(key), bytes.into()).await;
        put.map(drop).map_err(|e| self.failed(key, &e))
    }

    /// Erase what is stored under `key`; whether there was anything, where the store says
    /// (the local one does; S3 answers a delete the same either way).
    pub async fn delete(&self, key: &str) -> Result<bool, String> {
        match self.objects.delete(&self.path(key)).await {
            Ok(()) => Ok(true),
            Err(object_store::Error::NotFound { .. }) => Ok(false),
            Err(e) => Err(self.failed(key, &e)),
        }
    }

    fn failed(&self, key: &str, e: &object_store::Error) -> String {
        format!("{}: {}", self.name(key), cause(e))
    }
}

/// The innermost error: the operating system's for a file, without the store's wrapping,
/// which names the path once more.
fn cause(e: &object_store::Error) -> String {
    let mut inner: &dyn std::error::Error = e;
    while let Some(source) = inner.source() {
        inner = source;
    }
    inner.to_string()
}

/// `dir` as an absolute path without `.` or `..`, which a store's path cannot hold: as the
/// file system resolves it where it exists, else part by part (a copy's new directory).
fn absolute(dir: &str) -> std::io::Result<PathBuf> {
    if let Ok(path) = std::fs::canonicalize(dir) {
        return Ok(path);
    }
    let mut path = PathBuf::new();
    for part in std::path::absolute(dir)?.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                path.pop();
            }
            part => path.push(part),
        }
    }
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_and_file_urls_name_the_same_directory() {
        let here = std::env::current_dir().unwrap();
        let url = Url::from_directory_path(&here).unwrap();
        let a = Store::open("examples/../examples/data").unwrap();
        let b = Store::open(&format!("{url}examples/data")).unwrap();
        assert_eq!(a.path("c/0/1"), b.path("c/0/1"));
        assert!(a.path("c/0/1").as_ref().ends_with("examples/data/c/0/1"));
        assert_eq!(a.name("c/0/1"), "examples/../examples/data/c/0/1");
    }

    #[test]
    fn other_schemes_are_refused_by_name() {
        let e = Store::open("s3://bucket/array.zarr").err().unwrap();
        assert!(e.contains("s3://"), "{e}");
    }
}
