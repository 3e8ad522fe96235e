//! Input expansion: paths, directories (walked recursively) and glob
//! patterns into the sorted list of files a build reads.

use std::path::{Path, PathBuf};

use crate::{Error, Result};

/// Expands paths, directories (recursively) and glob patterns into a
/// sorted, de-duplicated list of files. A pattern or path that matches
/// nothing is an error naming it.
pub fn expand_inputs(specs: &[String]) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for spec in specs {
        let p = Path::new(spec);
        let before = out.len();
        if p.is_dir() {
            walk(p, &mut out)?;
        } else if p.is_file() {
            out.push(p.to_path_buf());
        } else if spec.contains(['*', '?', '[']) {
            let paths = glob::glob(spec).map_err(|e| Error::Input {
                path: p.to_path_buf(),
                detail: format!("bad glob pattern: {e}"),
            })?;
            for entry in paths {
                let entry = entry.map_err(|e| Error::Input {
                    path: p.to_path_buf(),
                    detail: e.to_string(),
                })?;
                if entry.is_file() {
                    out.push(entry);
                }
            }
        }
        if out.len() == before {
            return Err(Error::Input {
                path: p.to_path_buf(),
                detail: "no such file, or nothing matches".into(),
            });
        }
    }
    out.sort();
    out.dedup();
    Ok(out)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    let io = |source| Error::Io {
        path: dir.to_path_buf(),
        source,
    };
    for entry in std::fs::read_dir(dir).map_err(io)? {
        let path = entry.map_err(io)?.path();
        if path.is_dir() {
            walk(&path, out)?;
        } else if path.is_file() {
            out.push(path);
        }
    }
    Ok(())
}
