//! Where an array lives: an `object_store` store and the array's prefix in it, `zarr.json`
//! and the chunks under their keys below the prefix. A location is a URL, or a path of
//! the local file system: `file://`, `memory://` (an empty store of this process), and,
//! built with the `s3` feature, `s3://bucket/prefix` and `http(s)://` (read only). The
//! rest of the example is the same on every store.

use std::ops::Range;
use std::path::{Component, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use object_store::path::Path;
use object_store::{ObjectStore, ObjectStoreScheme};
use url::Url;

pub struct Store {
    objects: Arc<dyn ObjectStore>,
    prefix: Path,
    /// The location as given, to name keys in messages.
    location: String,
    /// Whether the store lists keys and serves ranges as asked: a plain HTTP server may not.
    lists: bool,
    /// The bytes the store has answered gets with, for the summary.
    read: AtomicU64,
}

impl Store {
    /// The array at `location`: a directory's path, or a URL. A request to a remote store
    /// that has no answer within `timeout` fails (after two retries), rather than hang.
    pub fn open(location: &str, timeout: Duration) -> Result<Store, String> {
        let failed = |e: String| format!("{location}: {e}");
        let url = if location.contains("://") {
            Url::parse(location).map_err(|e| failed(e.to_string()))?
        } else {
            let dir = absolute(location).map_err(|e| failed(e.to_string()))?;
            Url::from_directory_path(&dir).map_err(|()| failed("not an absolute path".into()))?
        };
        let unknown = || {
            failed(format!(
                "{}:// URLs are not supported: a path, file://, memory://, s3:// or http(s)://",
                url.scheme()
            ))
        };
        let (scheme, prefix) = ObjectStoreScheme::parse(&url).map_err(|_| unknown())?;
        let objects: Arc<dyn ObjectStore> = match scheme {
            ObjectStoreScheme::Local => Arc::new(object_store::local::LocalFileSystem::new()),
            ObjectStoreScheme::Memory => Arc::new(object_store::memory::InMemory::new()),
            ObjectStoreScheme::AmazonS3 | ObjectStoreScheme::Http => {
                remote(&scheme, &url, timeout).map_err(failed)?
            }
            _ => return Err(unknown()),
        };
        let lists = scheme != ObjectStoreScheme::Http;
        Ok(Store {
            lists,
            ..Store::new(objects, prefix, location)
        })
    }

    /// The array under `prefix` in `objects`, named `location` in messages.
    pub fn new(objects: Arc<dyn ObjectStore>, prefix: Path, location: &str) -> Store {
        Store {
            objects,
            prefix,
            location: location.to_string(),
            lists: true,
            read: AtomicU64::new(0),
        }
    }

    /// The bytes the store has answered gets with so far.
    pub fn bytes_read(&self) -> u64 {
        self.read.load(Ordering::Relaxed)
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
        self.read.fetch_add(bytes.len() as u64, Ordering::Relaxed);
        Ok(Some(bytes.into()))
    }

    /// The bytes of `ranges` of what is stored under `key`, one after the other, or `None`
    /// if nothing is: one request for ranges near each other (the store merges them). A
    /// plain HTTP server that serves no ranges is asked for the whole object instead.
    pub async fn get_ranges(
        &self,
        key: &str,
        ranges: &[Range<usize>],
    ) -> Result<Option<Vec<u8>>, String> {
        let wide: Vec<Range<u64>> = ranges
            .iter()
            .map(|r| r.start as u64..r.end as u64)
            .collect();
        let asked = self.objects.get_ranges(&self.path(key), &wide).await;
        let asked = asked.map(|parts| parts.concat());
        let cut = |whole: &[u8]| -> Option<Vec<u8>> {
            let parts: Option<Vec<&[u8]>> = ranges.iter().map(|r| whole.get(r.clone())).collect();
            parts.map(|p| p.concat())
        };
        self.answered(key, asked, cut).await
    }

    /// The last `n` bytes of what is stored under `key` (all of it if it is shorter), or
    /// `None` if nothing is. A plain HTTP server that serves no ranges is asked for the
    /// whole object instead.
    pub async fn get_tail(&self, key: &str, n: usize) -> Result<Option<Vec<u8>>, String> {
        let options = object_store::GetOptions {
            range: Some(object_store::GetRange::Suffix(n as u64)),
            ..Default::default()
        };
        let asked = match self.objects.get_opts(&self.path(key), options).await {
            Ok(found) => found.bytes().await.map(|b| b.to_vec()),
            Err(e) => Err(e),
        };
        let cut = |whole: &[u8]| Some(whole[whole.len().saturating_sub(n)..].to_vec());
        self.answered(key, asked, cut).await
    }

    /// What a ranged get of `key` answered, counted; where a plain HTTP server serves no
    /// ranges, the whole object, `cut` here (`None`: shorter than the ranges asked).
    async fn answered(
        &self,
        key: &str,
        asked: object_store::Result<Vec<u8>>,
        cut: impl FnOnce(&[u8]) -> Option<Vec<u8>>,
    ) -> Result<Option<Vec<u8>>, String> {
        let bytes = match asked {
            Ok(bytes) => bytes,
            Err(object_store::Error::NotFound { .. }) => return Ok(None),
            Err(_) if !self.lists => {
                let Some(whole) = self.get(key).await? else {
                    return Ok(None);
                };
                let short = || format!("{}: shorter than a chunk", self.name(key));
                return cut(&whole).ok_or_else(short).map(Some);
            }
            Err(e) => return Err(self.failed(key, &e)),
        };
        self.read.fetch_add(bytes.len() as u64, Ordering::Relaxed);
        Ok(Some(bytes))
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

    /// What to say of `key`, found missing: the store's answer where the location itself
    /// is missing (S3's `NoSuchBucket`), else that it is not found.
    pub async fn not_found(&self, key: &str) -> String {
        let listed = match self.lists {
            true => self
                .objects
                .list_with_delimiter(Some(&self.prefix))
                .await
                .err(),
            false => None,
        };
        match listed {
            Some(e) if !matches!(e, object_store::Error::NotFound { .. }) => self.failed(key, &e),
            _ => format!("{}: not found", self.name(key)),
        }
    }

    fn failed(&self, key: &str, e: &object_store::Error) -> String {
        format!("{}: {}", self.name(key), cause(e))
    }
}

/// The S3 or HTTP store of `url`: S3's credentials, region and endpoint from the `AWS_*`
/// variables (`AWS_ENDPOINT` and `AWS_ALLOW_HTTP=true` for an S3-compatible server).
#[cfg(feature = "s3")]
fn remote(
    scheme: &ObjectStoreScheme,
    url: &Url,
    timeout: Duration,
) -> Result<Arc<dyn ObjectStore>, String> {
    use object_store::aws::{AmazonS3Builder, AmazonS3ConfigKey};
    use object_store::http::HttpBuilder;
    use object_store::{ClientConfigKey, RetryConfig};
    // Set key by key: the client options of the `AWS_*` variables (`AWS_ALLOW_HTTP`) stay.
    let timeouts = [
        (ClientConfigKey::Timeout, timeout),
        (
            ClientConfigKey::ConnectTimeout,
            timeout.min(Duration::from_secs(5)),
        ),
    ]
    .map(|(key, t)| (key, format!("{}ms", t.as_millis().max(1))));
    let retry = RetryConfig {
        max_retries: 2,
        retry_timeout: timeout,
        ..RetryConfig::default()
    };
    let built: object_store::Result<Arc<dyn ObjectStore>> = match scheme {
        ObjectStoreScheme::AmazonS3 => timeouts
            .into_iter()
            .fold(AmazonS3Builder::from_env(), |b, (key, value)| {
                b.with_config(AmazonS3ConfigKey::Client(key), value)
            })
            .with_url(url.as_str())
            .with_retry(retry)
            .build()
            .map(|s| Arc::new(s) as _),
        // A plain `http://` server is what the URL names: allowed.
        _ => timeouts
            .into_iter()
            .fold(HttpBuilder::new(), |b, (key, value)| {
                b.with_config(key, value)
            })
            .with_config(ClientConfigKey::AllowHttp, "true")
            .with_url(&url[..url::Position::BeforePath])
            .with_retry(retry)
            .build()
            .map(|s| Arc::new(s) as _),
    };
    built.map_err(|e| cause(&e))
}

/// Without the `s3` feature: which build has the store.
#[cfg(not(feature = "s3"))]
fn remote(_: &ObjectStoreScheme, url: &Url, _: Duration) -> Result<Arc<dyn ObjectStore>, String> {
    Err(format!(
        "{}:// needs the example built with the s3 feature: \
         cargo build --release -p zarr-array --features s3",
        url.scheme()
    ))
}

/// The innermost error: the operating system's for a file, without the store's wrapping,
/// which names the path once more.
fn cause(e: &object_store::Error) -> String {
    let mut inner: &dyn std::error::Error = e;
    while let Some(source) = inner.source() {
        inner = source;
    }
    let text = inner.to_string();
    // An S3 error's XML body: its code and message say it.
    let tag = |name: &str| {
        let (open, close) = (format!("<{name}>"), format!("</{name}>"));
        let start = text.find(&open)? + open.len();
        Some(&text[start..start + text[start..].find(&close)?])
    };
    match (text.find('<'), tag("Code"), tag("Message")) {
        (Some(xml), Some(code), Some(message)) => format!("{}{code}: {message}", &text[..xml]),
        _ => text,
    }
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
        let a = Store::open("data/../data", TIMEOUT).unwrap();
        let b = Store::open(&format!("{url}data"), TIMEOUT).unwrap();
        assert_eq!(a.path("c/0/1"), b.path("c/0/1"));
        assert!(a.path("c/0/1").as_ref().ends_with("zarr-array/data/c/0/1"));
        assert_eq!(a.name("c/0/1"), "data/../data/c/0/1");
    }

    const TIMEOUT: Duration = Duration::from_secs(1);

    #[test]
    fn other_schemes_are_refused_by_name() {
        let e = Store::open("gs://bucket/array.zarr", TIMEOUT)
            .err()
            .unwrap();
        assert!(
            e.starts_with("gs://bucket/array.zarr: gs:// URLs are not supported"),
            "{e}"
        );
        let e = Store::open("ftp://host/array.zarr", TIMEOUT).err().unwrap();
        assert!(e.contains("ftp:// URLs are not supported"), "{e}");
    }

    #[cfg(not(feature = "s3"))]
    #[test]
    fn s3_and_http_name_the_feature_they_need() {
        for url in ["s3://bucket/array.zarr", "https://example.com/array.zarr"] {
            let e = Store::open(url, TIMEOUT).err().unwrap();
            assert!(e.contains("--features s3"), "{e}");
        }
    }

    #[cfg(feature = "s3")]
    #[test]
    fn s3_and_http_urls_name_their_prefix() {
        let s3 = Store::open("s3://bucket/a/b.zarr", TIMEOUT).unwrap();
        assert_eq!(s3.path("c/0").as_ref(), "a/b.zarr/c/0");
        let http = Store::open("http://127.0.0.1:9/data/b.zarr", TIMEOUT).unwrap();
        assert_eq!(http.path("zarr.json").as_ref(), "data/b.zarr/zarr.json");
    }

    #[tokio::test]
    async fn memory_stores_start_empty() {
        let store = Store::open("memory:///a.zarr", TIMEOUT).unwrap();
        assert_eq!(store.get("zarr.json").await.unwrap(), None);
        store.put("c/0", vec![1, 2]).await.unwrap();
        assert_eq!(store.get("c/0").await.unwrap(), Some(vec![1, 2]));
    }
}
