//! The sandbox console's static files (`pkg/console/`), in the binary: its `manifest.json` says
//! which URL path is which file, with what Content-Type, and the headers every one is sent with
//! (the npm face reads the same manifest from the package).

use serde::Deserialize;
use std::collections::HashMap;

const MANIFEST: &str = include_str!("../../pkg/console/manifest.json");

/// The files the manifest names, by file name.
const FILES: &[(&str, &[u8])] = &[
    ("index.html", include_bytes!("../../pkg/console/index.html")),
    ("console.js", include_bytes!("../../pkg/console/console.js")),
    ("console-export.js", include_bytes!("../../pkg/console/console-export.js")),
    ("console.css", include_bytes!("../../pkg/console/console.css")),
    ("favicon.svg", include_bytes!("../../pkg/console/favicon.svg")),
];

#[derive(Deserialize)]
struct Manifest {
    headers: Vec<(String, String)>,
    files: Vec<Entry>,
}

#[derive(Deserialize)]
struct Entry {
    path: String,
    file: String,
    #[serde(rename = "type")]
    content_type: String,
}

/// One file to serve.
#[derive(Debug)]
pub(crate) struct File {
    pub content_type: String,
    pub body: &'static [u8],
}

/// The console: each path's file, and the headers every one is sent with.
#[derive(Debug, Default)]
pub(crate) struct Console {
    pub files: HashMap<String, File>,
    pub headers: Vec<(String, String)>,
}

/// The manifest's `headers` is an object; read as pairs in its order.
fn read_manifest() -> Option<Manifest> {
    let v: serde_json::Value = serde_json::from_str(MANIFEST).ok()?;
    let headers = v.get("headers")?.as_object()?.iter().map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string())).collect();
    let files = serde_json::from_value(v.get("files")?.clone()).ok()?;
    Some(Manifest { headers, files })
}

/// The console as the manifest lists it (a file it names that is not in the binary is left out;
/// a test holds the two lists equal).
pub(crate) fn load() -> Console {
    let Some(m) = read_manifest() else { return Console::default() };
    let mut files = HashMap::new();
    for e in m.files {
        if let Some((_, body)) = FILES.iter().find(|(name, _)| *name == e.file) {
            files.insert(e.path, File { content_type: e.content_type, body });
        }
    }
    Console { files, headers: m.headers }
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_file_of_the_manifest_is_in_the_binary() {
        let m = super::read_manifest().expect("the manifest reads");
        assert!(!m.headers.is_empty());
        for e in &m.files {
            assert!(super::FILES.iter().any(|(name, _)| *name == e.file), "{} is not embedded", e.file);
        }
        assert_eq!(m.files.len(), super::FILES.len(), "a file is embedded that the manifest does not list");
        assert_eq!(super::load().files.len(), m.files.len());
    }
}
