//! The layers of `src/` (ARCHITECTURE.md): every `crate::` path in a file resolves, through
//! the `mod.rs` re-exports, to the file that defines it, and no file imports from a layer
//! above its own.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

/// The layers, lowest first, as path prefixes under `src/`. A file may import from its own
/// layer and the layers below. `lib.rs`, the root, declares and re-exports them all.
const LAYERS: &[(&str, &[&str])] = &[
    ("arch", &["arch/"]),
    ("traverse", &["traverse/"]),
    (
        "element",
        &[
            "element.rs",
            "check.rs",
            "endian.rs",
            "error.rs",
            "minifloat.rs",
            "metadata/mod.rs",
            "metadata/data_type.rs",
            "metadata/fill.rs",
        ],
    ),
    ("parallel", &["parallel.rs"]),
    (
        "api",
        &["typed/", "runtime/", "metadata/codec.rs", "prelude.rs"],
    ),
];

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The layer of a file, by its path under `src/`.
fn layer(file: &str) -> Option<usize> {
    LAYERS
        .iter()
        .position(|(_, prefixes)| prefixes.iter().any(|p| file.starts_with(p)))
}

/// The file of module `module` (segments from the crate root), under `src/`.
fn module_file(module: &[String]) -> Option<String> {
    if module.is_empty() {
        return Some("lib.rs".into());
    }
    let base = module.join("/");
    [format!("{base}.rs"), format!("{base}/mod.rs")]
        .into_iter()
        .find(|f| src().join(f).is_file())
}

/// The text of `file` without comments.
fn code(file: &str) -> String {
    let text = fs::read_to_string(src().join(file)).unwrap();
    let lines = text.lines().map(|l| l.split("//").next().unwrap_or(""));
    lines.collect::<Vec<_>>().join("\n")
}

/// The paths after `crate::` in `text`, with `{a, b::{c}}` groups expanded.
fn crate_paths(text: &str) -> Vec<Vec<String>> {
    let mut paths = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("crate::") {
        let after = &rest[at + "crate::".len()..];
        let (found, used) = tree(after);
        paths.extend(found);
        rest = &after[used..];
    }
    paths
}

/// The paths of one use tree at the start of `text`, and the bytes it took.
fn tree(text: &str) -> (Vec<Vec<String>>, usize) {
    let ident = |s: &str| {
        s.find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(s.len())
    };
    let mut prefix = Vec::new();
    let mut at = 0;
    loop {
        let rest = text[at..].trim_start();
        at = text.len() - rest.len();
        if rest.starts_with('{') {
            let mut paths = Vec::new();
            at += 1;
            loop {
                let rest = text[at..].trim_start();
                at = text.len() - rest.len();
                if rest.starts_with('}') {
                    return (paths, at + 1);
                }
                let (inner, used) = tree(rest);
                paths.extend(inner.into_iter().map(|p| [prefix.clone(), p].concat()));
                at += used;
                let rest = text[at..].trim_start();
                at = text.len() - rest.len();
                if rest.starts_with(',') {
                    at += 1;
                } else if !rest.starts_with('}') {
                    return (paths, at);
                }
            }
        }
        let len = ident(rest);
        if len == 0 {
            return (vec![prefix], at);
        }
        prefix.push(rest[..len].to_string());
        at += len;
        if text[at..].starts_with("::") {
            at += 2;
        } else {
            return (vec![prefix], at);
        }
    }
}

/// Where `name` is re-exported from in module `module`, as a path from the crate root.
fn reexport(module: &[String], name: &str) -> Option<Vec<String>> {
    let text = code(&module_file(module)?);
    for statement in text.split(';') {
        let statement = statement.trim();
        let Some(at) = statement.find("use ") else {
            continue;
        };
        if !statement[..at].trim_start().starts_with("pub") {
            continue;
        }
        let (paths, _) = tree(&statement[at + 4..]);
        for path in paths {
            if path.last().map(String::as_str) == Some(name) {
                return Some(match path[0].as_str() {
                    "crate" => path[1..].to_vec(),
                    "self" => [module, &path[1..]].concat(),
                    _ => [module, &path[..]].concat(),
                });
            }
        }
    }
    None
}

/// The file that defines what `path` (from the crate root) names.
fn resolve(path: &[String]) -> Option<String> {
    let mut module: Vec<String> = Vec::new();
    for (i, segment) in path.iter().enumerate() {
        let mut deeper = module.clone();
        deeper.push(segment.clone());
        if module_file(&deeper).is_some() {
            module = deeper;
            continue;
        }
        return match reexport(&module, segment) {
            Some(target) if target != path => resolve(&[&target[..], &path[i + 1..]].concat()),
            _ => module_file(&module),
        };
    }
    module_file(&module)
}

fn files(dir: &Path, out: &mut Vec<String>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let rel = path.strip_prefix(src()).unwrap();
            out.push(rel.to_string_lossy().replace('\\', "/"));
        }
    }
}

/// Every file's imports, as (file, imported file).
fn imports() -> BTreeSet<(String, String)> {
    let mut all = Vec::new();
    files(&src(), &mut all);
    let mut edges = BTreeSet::new();
    for file in all {
        for path in crate_paths(&code(&file)) {
            let target = resolve(&path).unwrap_or_else(|| panic!("{file}: crate::{path:?}"));
            if target != file {
                edges.insert((file.clone(), target));
            }
        }
    }
    edges
}

#[test]
fn no_layer_imports_from_a_layer_above() {
    let edges = imports();
    // The resolution sees through re-exports: known imports are found where they point.
    for known in [
        ("typed/encode.rs", "parallel.rs"),
        ("typed/encode.rs", "traverse/walk.rs"),
        ("element.rs", "metadata/data_type.rs"),
        ("traverse/gather.rs", "arch/mod.rs"),
        ("parallel.rs", "check.rs"),
    ] {
        let known = (known.0.to_string(), known.1.to_string());
        assert!(edges.contains(&known), "{known:?} not found in {edges:?}");
    }
    let mut unplaced = Vec::new();
    let mut upward = Vec::new();
    for (from, to) in &edges {
        if from == "lib.rs" {
            continue;
        }
        match (layer(from), layer(to)) {
            (Some(a), Some(b)) if b > a => upward.push(format!(
                "{from} ({}) imports {to} ({})",
                LAYERS[a].0, LAYERS[b].0
            )),
            (Some(_), Some(_)) => {}
            _ => unplaced.push(format!("{from} -> {to}")),
        }
    }
    assert!(unplaced.is_empty(), "files in no layer: {unplaced:#?}");
    assert!(upward.is_empty(), "imports from a layer above: {upward:#?}");
}

/// The lowest layer stands alone: `arch/` names nothing else of the crate.
#[test]
fn arch_imports_nothing_of_the_crate() {
    let from_arch: Vec<_> = imports()
        .into_iter()
        .filter(|(from, to)| from.starts_with("arch/") && !to.starts_with("arch/"))
        .collect();
    assert!(from_arch.is_empty(), "{from_arch:?}");
}

/// The prelude holds every trait the crate root exports, but `Element`, which bounds the
/// element types rather than giving methods to call, and the two types every call names.
#[test]
fn the_prelude_has_every_extension_trait() {
    let mut all = Vec::new();
    files(&src(), &mut all);
    let traits: BTreeSet<String> = all
        .iter()
        .flat_map(|file| {
            let text = code(file);
            let names: Vec<String> = text
                .lines()
                .filter_map(|line| line.trim_start().strip_prefix("pub trait "))
                .filter_map(|rest| rest.split(|c: char| !c.is_alphanumeric()).next())
                .map(String::from)
                .collect();
            names
        })
        .collect();
    let exported: Vec<&String> = traits
        .iter()
        .filter(|name| reexport(&[], name).is_some())
        .collect();
    assert!(exported.len() >= 8, "{exported:?}");
    let prelude = ["prelude".to_string()];
    let wanted = exported
        .into_iter()
        .map(String::as_str)
        .filter(|&n| n != "Element");
    for name in wanted.chain(["Endian", "ChunkGrid"]) {
        assert!(
            reexport(&prelude, name).is_some(),
            "{name} is not in the prelude"
        );
    }
}
