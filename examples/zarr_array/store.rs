//! An array directory on disk: `zarr.json` and the chunk files under their keys.

use std::fs;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

pub struct Store {
    dir: PathBuf,
}

impl Store {
    pub fn new(dir: &Path) -> Self {
        Store {
            dir: dir.to_path_buf(),
        }
    }

    /// The array's directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Where a chunk key lives: a key with `/` separators names nested directories.
    pub fn path(&self, key: &str) -> PathBuf {
        self.dir.join(key)
    }

    /// The bytes stored under `key`, or `None` if there are none (a missing chunk).
    pub fn read(&self, key: &str) -> Result<Option<Vec<u8>>, String> {
        let path = self.path(key);
        match fs::read(&path) {
            Ok(bytes) => Ok(Some(bytes)),
            Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
            Err(e) => Err(format!("{}: {e}", path.display())),
        }
    }

    /// Store `bytes` under `key`, creating the directories it needs.
    pub fn write(&self, key: &str, bytes: &[u8]) -> Result<(), String> {
        let path = self.path(key);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
        }
        fs::write(&path, bytes).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// Erase what is stored under `key`; whether there was anything.
    pub fn remove(&self, key: &str) -> Result<bool, String> {
        let path = self.path(key);
        match fs::remove_file(&path) {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == ErrorKind::NotFound => Ok(false),
            Err(e) => Err(format!("{}: {e}", path.display())),
        }
    }
}
