//! Checks on the repository itself rather than on the binaries: no tracked
//! file names a directory of one particular machine.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::util::repo_root;

/// The machine-specific prefix that must not appear; built at run time so
/// that this file does not contain it.
fn machine_prefix() -> String {
    ["", "work", ""].join("/")
}

/// Tracked files (`git ls-files`), or every file under the root (skipping
/// `.git`, `target` and the local virtualenvs and caches) when git is absent
/// or the tree is not a checkout.
fn repository_files(root: &Path) -> Vec<PathBuf> {
    let listed = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(["ls-files", "-z"])
        .output()
        .ok()
        .filter(|o| o.status.success());
    if let Some(out) = listed {
        return out
            .stdout
            .split(|&b| b == 0)
            .filter(|p| !p.is_empty())
            .map(|p| root.join(String::from_utf8_lossy(p).as_ref()))
            .collect();
    }
    let mut files = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir)
            .expect("read repository dir")
            .flatten()
        {
            let name = entry.file_name().to_string_lossy().into_owned();
            let path = entry.path();
            if path.is_dir() {
                let skip = name == ".git" || name == "target" || name.starts_with(".venv");
                if !skip && name != ".cache" && name != ".work" {
                    stack.push(path);
                }
            } else {
                files.push(path);
            }
        }
    }
    files
}

/// A binary fixture (a NUL byte in its first 8000 bytes, git's rule).
fn is_binary(bytes: &[u8]) -> bool {
    bytes.iter().take(8000).any(|&b| b == 0)
}

#[test]
fn no_absolute_machine_paths_in_tracked_files() {
    let root = repo_root();
    let needle = machine_prefix();
    let files = repository_files(&root);
    assert!(files.len() > 50, "only {} files found", files.len());
    let mut hits = Vec::new();
    for path in &files {
        // a tracked file deleted in the working tree is not content
        let Ok(bytes) = std::fs::read(path) else {
            continue;
        };
        if is_binary(&bytes) {
            continue;
        }
        let text = String::from_utf8_lossy(&bytes);
        for (n, line) in text.lines().enumerate() {
            if line.contains(&needle) {
                hits.push(format!("{}:{}: {line}", path.display(), n + 1));
            }
        }
    }
    assert!(
        hits.is_empty(),
        "machine-specific paths (write `../shared/data` or `$SIEVE_SHARED_DATA`):\n{}",
        hits.join("\n")
    );
}

/// The check itself finds a planted path (so an empty result above means
/// something).
#[test]
fn machine_prefix_is_detected_in_text() {
    let planted = format!("see {}shared/data/warc", machine_prefix());
    assert!(planted.contains(&machine_prefix()));
    assert!(!"see ../shared/data/warc".contains(&machine_prefix()));
    assert!(is_binary(b"gz\0data") && !is_binary(b"text"));
}

/// Words that, followed by a number, name how the work was organised
/// (a tracker's issue, a work session, a helper or a branch) rather than
/// what sieve does; built at run time so that this file does not hold them.
fn organisation_words() -> Vec<String> {
    [
        "iss|ue",
        "iss|ues",
        "st|op",
        "hel|per h",
        "bra|nch h",
        "bra|nch i",
    ]
    .iter()
    .map(|w| w.replace('|', ""))
    .collect()
}

/// The first place in `line` where one of `words` is followed by a space
/// (or `#`) and a digit, or `h` and two digits stand alone (a helper's
/// name); `None` when there is none.
fn names_organisation(line: &str, words: &[String]) -> Option<String> {
    let lower = line.to_lowercase();
    for w in words {
        let mut from = 0;
        while let Some(i) = lower[from..].find(w.as_str()) {
            let at = from + i;
            let before = lower[..at].chars().next_back();
            let rest = lower[at + w.len()..].trim_start_matches([' ', '#']);
            let spaced = w.contains(' ') || lower[at + w.len()..].starts_with([' ', '#']);
            if !before.is_some_and(|c| c.is_alphanumeric() || c == '-' || c == '_')
                && spaced
                && rest.starts_with(|c: char| c.is_ascii_digit())
            {
                return Some(lower[at..].chars().take(24).collect());
            }
            from = at + w.len();
        }
    }
    None
}

/// The repository's prose and code speak of sieve alone: no issue numbers,
/// session numbers, helper or branch names (commit messages may keep them).
/// Data files (fixtures, topics) are left out, their SOURCES.md files
/// not: the data is others' text, the notes on it are ours.
#[test]
fn no_issue_numbers_or_names_of_how_the_work_was_organised() {
    let root = repo_root();
    let words = organisation_words();
    let ours = [
        "rs", "md", "sh", "py", "toml", "yml", "yaml", "html", "js", "css",
    ];
    let mut hits = Vec::new();
    for path in repository_files(&root) {
        let rel = path.strip_prefix(&root).unwrap_or(&path);
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        // Fixtures and topics are others' text; their SOURCES.md files are ours.
        let data = (rel.starts_with("tests/data") || rel.starts_with("topics")) && ext != "md";
        if data || !ours.contains(&ext) {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        for (n, line) in text.lines().enumerate() {
            if let Some(hit) = names_organisation(line, &words) {
                hits.push(format!("{}:{}: {hit}", rel.display(), n + 1));
            }
        }
    }
    assert!(
        hits.is_empty(),
        "name the capability, not the issue, session, helper or branch:\n{}",
        hits.join("\n")
    );
}

/// The check finds what it is for, and leaves ordinary words alone.
#[test]
fn organisation_names_are_detected_in_text() {
    let words = organisation_words();
    let found = |s: &str| names_organisation(s, &words).is_some();
    assert!(found(&format!("see {} 18", words[0])));
    assert!(found(&format!("({} #4)", words[0])));
    assert!(found(&format!("{} 35 notes", words[2])));
    assert!(found(&format!("by {}32", words[3])));
    assert!(!found("an issue of the crawl, stop words, 2 issues"));
    assert!(!found("a non-stop 3-step path"));
    assert!(!found(&format!("t{} 4", words[0])));
}

/// The first directory on this process's PATH holding `name`.
fn on_path(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// `scripts/setup-system.sh --check` names the Debian packages for what is
/// missing (here: python3 and its venv and pip, absent from a PATH holding
/// only perl) and exits non-zero; with nothing on PATH, perl is named too.
#[test]
fn setup_check_names_missing_python_and_perl() {
    let bash = on_path("bash").expect("bash on PATH");
    let script = repo_root().join("scripts/setup-system.sh");
    let tools = tempfile::tempdir().expect("temp dir");
    let empty = tempfile::tempdir().expect("temp dir");
    let check = |path: &Path| {
        let out = Command::new(&bash)
            .arg(&script)
            .arg("--check")
            .env("PATH", path)
            .env_remove("PYTHON")
            .output()
            .expect("run bash");
        assert_eq!(out.status.code(), Some(1), "{out:?}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let none = check(empty.path());
    assert!(
        none.contains("missing: python3 python3-venv python3-pip perl"),
        "{none}"
    );
    if let Some(perl) = on_path("perl") {
        std::os::unix::fs::symlink(perl, tools.path().join("perl")).expect("symlink perl");
        let no_python = check(tools.path());
        assert!(
            no_python.contains("missing: python3 python3-venv python3-pip")
                && !no_python.contains("perl"),
            "{no_python}"
        );
    }
}

/// The normal (non-dev, non-build) dependency closure of workspace
/// package `name`, as package names, from `cargo metadata`'s resolve graph.
fn normal_dependencies(name: &str) -> Vec<String> {
    let meta = cargo_metadata();
    let nodes = meta["resolve"]["nodes"].as_array().unwrap();
    let name_of = |id: &str| id_name(&meta, id);
    let start = nodes
        .iter()
        .find(|n| name_of(n["id"].as_str().unwrap()) == name);
    let mut todo = vec![start.expect("package in the workspace")["id"].clone()];
    let mut seen = BTreeSet::new();
    while let Some(id) = todo.pop() {
        let node = nodes.iter().find(|n| n["id"] == id).unwrap();
        for dep in node["deps"].as_array().unwrap() {
            let normal = dep["dep_kinds"]
                .as_array()
                .unwrap()
                .iter()
                .any(|k| k["kind"].is_null());
            if normal && seen.insert(name_of(dep["pkg"].as_str().unwrap())) {
                todo.push(dep["pkg"].clone());
            }
        }
    }
    seen.into_iter().collect()
}

/// The standard output of `cargo ARGS` in the repository, which must succeed.
fn cargo_output(args: &[&str]) -> Vec<u8> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    // Without the test command's lint wrapper: metadata and tree compile
    // nothing, and cargo's compiler probe through clippy-driver, run from
    // inside `cargo test`, fails.
    let out = Command::new(cargo)
        .args(args)
        .env_remove("RUSTC_WORKSPACE_WRAPPER")
        .env_remove("CLIPPY_ARGS")
        .stdin(std::process::Stdio::null())
        .current_dir(repo_root())
        .output()
        .expect("run cargo");
    assert!(
        out.status.success(),
        "cargo {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// `cargo metadata` of the workspace, resolved for the host platform:
/// offline, it needs only the packages a build here downloaded (a fresh
/// machine has no `android_system_properties` and the like, which the
/// unfiltered resolve would ask for).
fn cargo_metadata() -> serde_json::Value {
    let host = host_triple();
    let args = [
        "metadata",
        "--format-version",
        "1",
        "--locked",
        "--offline",
        "--filter-platform",
        &host,
    ];
    serde_json::from_slice(&cargo_output(&args)).unwrap()
}

/// The compiler's host platform (`rustc -vV`).
fn host_triple() -> String {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let out = Command::new(rustc).arg("-vV").output().expect("run rustc");
    let text = String::from_utf8(out.stdout).unwrap();
    let host = text.lines().find_map(|l| l.strip_prefix("host: "));
    host.expect("rustc -vV names its host").to_string()
}

/// The names of the packages that are compiled only for the compiler's
/// own use: reached from the workspace only through a build dependency or
/// a proc macro, never as code of a library, binary or test.
fn build_time_only_packages(meta: &serde_json::Value) -> BTreeSet<String> {
    let packages = meta["packages"].as_array().unwrap();
    let is_proc_macro = |id: &serde_json::Value| {
        let p = packages.iter().find(|p| p["id"] == *id).unwrap();
        p["targets"].as_array().unwrap().iter().any(|t| {
            t["kind"]
                .as_array()
                .unwrap()
                .iter()
                .any(|k| k == "proc-macro")
        })
    };
    let nodes = meta["resolve"]["nodes"].as_array().unwrap();
    let (mut target, mut host) = (BTreeSet::new(), BTreeSet::new());
    let mut todo: Vec<(serde_json::Value, bool)> = meta["workspace_members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|id| (id.clone(), false))
        .collect();
    while let Some((id, for_host)) = todo.pop() {
        let set = if for_host { &mut host } else { &mut target };
        if !set.insert(id.as_str().unwrap().to_string()) {
            continue;
        }
        let node = nodes.iter().find(|n| n["id"] == id).unwrap();
        for dep in node["deps"].as_array().unwrap() {
            for kind in dep["dep_kinds"].as_array().unwrap() {
                let h = for_host || kind["kind"] == "build" || is_proc_macro(&dep["pkg"]);
                todo.push((dep["pkg"].clone(), h));
            }
        }
    }
    host.difference(&target)
        .map(|id| id_name(meta, id))
        .collect()
}

/// The packages the root `Cargo.toml` compiles at `opt-level = 0` in the
/// dev profile (`[profile.dev.package.NAME]` followed by that line).
fn unoptimised_in_dev() -> BTreeSet<String> {
    let toml = std::fs::read_to_string(repo_root().join("Cargo.toml")).unwrap();
    let lines: Vec<&str> = toml.lines().collect();
    lines
        .windows(2)
        .filter(|w| w[1].trim() == "opt-level = 0")
        .filter_map(|w| {
            w[0].strip_prefix("[profile.dev.package.")?
                .strip_suffix(']')
        })
        .map(|n| n.trim_matches('"').to_string())
        .collect()
}

#[test]
fn build_time_only_crates_are_not_optimised() {
    let meta = cargo_metadata();
    let host = build_time_only_packages(&meta);
    for expected in ["syn", "proc-macro2", "serde_derive", "thiserror-impl"] {
        assert!(host.contains(expected), "{expected} not found: {host:?}");
    }
    for runtime in ["tantivy", "serde", "serde_json"] {
        assert!(
            !host.contains(runtime),
            "{runtime} is runtime code: {host:?}"
        );
    }
    let listed = unoptimised_in_dev();
    let missing: Vec<&String> = host.difference(&listed).collect();
    assert!(
        missing.is_empty(),
        "add [profile.dev.package.NAME] opt-level = 0 to Cargo.toml for {missing:?}"
    );
}

/// The package name of a `cargo metadata` package id.
fn id_name(meta: &serde_json::Value, id: &str) -> String {
    let packages = meta["packages"].as_array().unwrap();
    let p = packages.iter().find(|p| p["id"] == id).unwrap();
    p["name"].as_str().unwrap().to_string()
}

#[test]
fn searcher_compiles_no_crawl_reader_html_extractor_charset_detector_or_parquet() {
    let deps = normal_dependencies("sieve-searcher");
    assert!(
        deps.iter().any(|d| d == "tantivy"),
        "the walk found tantivy: {deps:?}"
    );
    // The walk does see these where they are: the ingest crate uses them.
    let ingest = normal_dependencies("sieve-ingest");
    for used in ["sieve-crawl", "chardetng", "parquet"] {
        assert!(
            ingest.iter().any(|d| d == used),
            "{used} not found: {ingest:?}"
        );
    }
    for banned in [
        "sieve-crawl",
        "sieve-text",
        "sieve-ingest",
        "chardetng",
        "parquet",
    ] {
        assert!(
            !deps.iter().any(|d| d == banned),
            "sieve-searcher depends on {banned}: {deps:?}"
        );
    }
}

/// Each package's features in `cargo tree` over the edge kinds `edges`
/// (host platform; `args` choose the packages), unioned over its lines.
fn tree_features(args: &[&str], edges: &str) -> BTreeMap<String, BTreeSet<String>> {
    let mut all = vec![
        "tree",
        "--locked",
        "--offline",
        "--prefix",
        "none",
        "-e",
        edges,
    ];
    all.extend(["-f", "{p}|{f}"]);
    all.extend(args);
    let stdout = cargo_output(&all);
    let mut features: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for line in String::from_utf8(stdout).unwrap().lines() {
        let Some((package, list)) = line.split_once('|') else {
            continue;
        };
        let list = list.trim_end_matches(" (*)");
        let set = features.entry(package.to_string()).or_default();
        set.extend(list.split(',').filter(|f| !f.is_empty()).map(String::from));
    }
    features
}

/// maturin builds the Python extension's crate alone; where a shared
/// dependency's features differ from the workspace build's, the test
/// command's Python step compiles it, and every crate above it (tantivy,
/// parquet, all of sieve), a second time. python/Cargo.toml lists the
/// crates whose features it must turn on to match.
#[test]
fn python_extension_is_built_with_the_workspace_features() {
    let workspace = tree_features(&["--workspace"], "normal,build,dev");
    let python = tree_features(&["-p", "sieve-python"], "normal,build");
    assert!(
        python.keys().any(|p| p.starts_with("tantivy ")),
        "{python:?}"
    );
    let differ: Vec<String> = python
        .iter()
        .filter(|(package, features)| workspace.get(*package) != Some(features))
        .map(|(package, features)| {
            let all = workspace.get(package).cloned().unwrap_or_default();
            let missing: Vec<&String> = all.difference(features).collect();
            format!("{package}: turn on {missing:?}")
        })
        .collect();
    assert!(
        differ.is_empty(),
        "python/Cargo.toml: match the workspace's features: {differ:#?}"
    );
}
