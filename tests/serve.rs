//! The search service end to end: `sieve-search serve` started on an
//! ephemeral loopback port over the committed CACM (made-up spam
//! percentiles), every route asked, its answers checked against the
//! command line on the same index and settings (`sieve-search run`:
//! same docids, scores and order; the batch route byte for byte;
//! `sieve-index show --json`), Anserini 1.7.1's answer shape checked
//! against a recorded answer, hostile and malformed requests refused with
//! a JSON 4xx, slow clients dropped, and SIGTERM finishing the request in
//! flight with exit code 0.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::util::{Dir, bin, fixture, ok, repo_root};

/// The CACM index every test here searches (built once, with positions
/// for SDM and near-duplicate signatures).
fn cacm() -> &'static Path {
    static INDEX: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    let (_, ix) = INDEX.get_or_init(|| {
        let tmp = tempfile::Builder::new()
            .prefix("sieve-serve-cacm-")
            .tempdir()
            .unwrap();
        let ix = tmp.path().join("cacm");
        ok(Command::new(bin("sieve-index"))
            .arg("build")
            .arg("--input")
            .arg(fixture("cacm/cacm.trec.gz"))
            .arg("--spam")
            .arg(fixture("spam/made-up-cacm-spam.txt"))
            .arg("--positions")
            .arg("--index")
            .arg(&ix));
        (tmp, ix)
    });
    ix
}

/// A running server, stopped (killed) when dropped.
pub struct Server {
    child: Child,
    /// `127.0.0.1:PORT`.
    pub addr: String,
}

impl Server {
    /// Starts `sieve-search serve` with `args` on port 0 and reads the
    /// address from its first line.
    pub fn start(args: &[&str]) -> Server {
        let mut child = Command::new(bin("sieve-search"))
            .arg("serve")
            .args(["--bind", "127.0.0.1:0"])
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn sieve-search serve");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let addr = line
            .trim()
            .strip_prefix("listening on http://")
            .unwrap_or_else(|| panic!("first line {line:?}"))
            .to_string();
        Server { child, addr }
    }

    /// A server of the CACM index under the name `cacm`.
    pub fn cacm(extra: &[&str]) -> Server {
        let spec = format!("cacm={}", cacm().display());
        let mut args = vec!["--index", spec.as_str()];
        args.extend_from_slice(extra);
        Server::start(&args)
    }

    /// `GET path`.
    pub fn get(&self, path: &str) -> Resp {
        self.send(format!("GET {path} HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n").as_bytes())
    }

    /// `POST path` with `body`.
    pub fn post(&self, path: &str, body: &[u8]) -> Resp {
        self.send(&post_request(path, body))
    }

    /// Sends the raw request `req` and reads the whole answer.
    pub fn send(&self, req: &[u8]) -> Resp {
        send(&self.addr, req)
    }

    /// Sends SIGTERM and waits for the exit code.
    pub fn terminate(mut self) -> Option<i32> {
        ok(Command::new("kill").args(["-TERM", &self.child.id().to_string()]));
        self.child.wait().unwrap().code()
    }
}

/// A `POST path` request with `body`.
fn post_request(path: &str, body: &[u8]) -> Vec<u8> {
    let mut req = format!(
        "POST {path} HTTP/1.1\r\nHost: t\r\nConnection: close\r\nContent-Length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    req.extend_from_slice(body);
    req
}

/// Sends the raw request `req` to `addr` and reads the whole answer.
fn send(addr: &str, req: &[u8]) -> Resp {
    {
        let mut s = TcpStream::connect(addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
        // A server may answer (and close) before reading a whole oversized
        // request: a failed write is then not an error of the test.
        let _ = s.write_all(req);
        let mut raw = Vec::new();
        let _ = s.read_to_end(&mut raw);
        Resp::parse(&raw)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An answer: status, headers (names lower-cased) and body.
#[derive(Debug)]
pub struct Resp {
    /// The status code (0 when no answer came).
    pub status: u16,
    /// `(name, value)`.
    pub headers: Vec<(String, String)>,
    /// The body, de-chunked.
    pub body: Vec<u8>,
}

impl Resp {
    fn parse(raw: &[u8]) -> Resp {
        let split = raw.windows(4).position(|w| w == b"\r\n\r\n");
        let Some(split) = split else {
            return Resp {
                status: 0,
                headers: vec![],
                body: raw.to_vec(),
            };
        };
        let head = String::from_utf8_lossy(&raw[..split]).to_string();
        let mut lines = head.split("\r\n");
        let status = lines
            .next()
            .and_then(|l| l.split(' ').nth(1))
            .and_then(|c| c.parse().ok());
        let headers: Vec<(String, String)> = lines
            .filter_map(|l| l.split_once(':'))
            .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
            .collect();
        let mut body = raw[split + 4..].to_vec();
        if headers
            .iter()
            .any(|(k, v)| k == "transfer-encoding" && v == "chunked")
        {
            body = dechunk(&body);
        }
        Resp {
            status: status.unwrap_or(0),
            headers,
            body,
        }
    }

    /// The header `name`.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The body as JSON.
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&self.body)))
    }

    /// The body as text.
    pub fn text(&self) -> String {
        String::from_utf8(self.body.clone()).unwrap()
    }
}

fn dechunk(mut b: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(eol) = b.windows(2).position(|w| w == b"\r\n") {
        let n = usize::from_str_radix(std::str::from_utf8(&b[..eol]).unwrap().trim(), 16).unwrap();
        if n == 0 {
            break;
        }
        out.extend_from_slice(&b[eol + 2..eol + 2 + n]);
        b = &b[eol + 4 + n..];
    }
    out
}

/// Percent-encodes `s` for a query string.
pub fn enc(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// The CACM topics (id, title) of the committed topic file.
fn cacm_topics(dir: &Dir) -> Vec<(String, String)> {
    let out = ok(dir
        .cmd("sieve-search")
        .arg("topics")
        .arg(repo_root().join("topics/topics.cacm.txt")));
    out.lines()
        .skip(2)
        .filter_map(|l| l.split_once('\t'))
        .map(|(id, q)| (id.to_string(), q.to_string()))
        .collect()
}

/// `sieve-search run` over the CACM index with `flags`, 10 hits: per
/// topic, `(docid, score as written)` in rank order.
fn cli_run(dir: &Dir, flags: &[&str]) -> std::collections::BTreeMap<String, Vec<(String, String)>> {
    let text = ok(dir
        .cmd("sieve-search")
        .arg("run")
        .arg("--index")
        .arg(cacm())
        .arg("--topics")
        .arg(repo_root().join("topics/topics.cacm.txt"))
        .args(["--hits", "10"])
        .args(flags));
    let mut out = std::collections::BTreeMap::<String, Vec<(String, String)>>::new();
    for l in text.lines() {
        let f: Vec<&str> = l.split(' ').collect();
        out.entry(f[0].to_string())
            .or_default()
            .push((f[2].to_string(), f[4].to_string()));
    }
    out
}

/// The settings checked against the command line: (query parameters,
/// `run` flags).
const SETTINGS: &[(&str, &[&str])] = &[
    ("", &[]),
    ("&k1=1.2&b=0.75", &["--k1", "1.2", "--b", "0.75"]),
    ("&model=qld&mu=500", &["--model", "qld", "--mu", "500"]),
    ("&model=sdm", &["--model", "sdm"]),
    ("&min_spam_percentile=70", &["--min-spam-percentile", "70"]),
    (
        "&min_spam_percentile=50&unscored=drop&collection_stats=filtered",
        &[
            "--min-spam-percentile",
            "50",
            "--unscored",
            "drop",
            "--collection-stats",
            "filtered",
        ],
    ),
    ("&drop_near_duplicates=true", &["--drop-near-duplicates"]),
    ("&feedback=rm3", &["--feedback", "rm3"]),
    (
        "&feedback=bm25prf&bm25prf_fb_terms=5",
        &["--feedback", "bm25prf", "--bm25prf-fb-terms", "5"],
    ),
];

sieve_test!(serve_search_equals_run_for_every_setting, |dir| {
    let server = Server::cacm(&[]);
    let topics = cacm_topics(&dir);
    for (params, flags) in SETTINGS {
        let expected = cli_run(&dir, flags);
        for (id, title) in topics.iter().take(12) {
            let path = format!(
                "/v1/cacm/search?hits=10&qid={id}&query={}{params}",
                enc(title)
            );
            let r = server.get(&path);
            assert_eq!(r.status, 200, "{path}: {}", r.text());
            let v = r.json();
            let got: Vec<(String, String)> = v["candidates"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| {
                    let score = c["score"].as_f64().unwrap() as f32;
                    (c["docid"].as_str().unwrap().to_string(), score.to_string())
                })
                .collect();
            let want = expected.get(id).cloned().unwrap_or_default();
            assert_eq!(got, want, "topic {id} with {params:?}");
            assert_eq!(v["query"]["qid"], id.as_str());
        }
    }
});

sieve_test!(serve_batch_run_is_byte_equal_to_run, |dir| {
    let server = Server::cacm(&[]);
    let topics = std::fs::read(repo_root().join("topics/topics.cacm.txt")).unwrap();
    for (params, flags) in [
        ("tag=t", &["--tag", "t"][..]),
        (
            "tag=t&min_spam_percentile=70&k1=1.2",
            &["--tag", "t", "--min-spam-percentile", "70", "--k1", "1.2"][..],
        ),
        (
            "tag=t&feedback=rocchio",
            &["--tag", "t", "--feedback", "rocchio"][..],
        ),
    ] {
        let out = dir.join("cli.run");
        ok(dir
            .cmd("sieve-search")
            .arg("run")
            .arg("--index")
            .arg(cacm())
            .arg("--topics")
            .arg(repo_root().join("topics/topics.cacm.txt"))
            .arg("--output")
            .arg(&out)
            .args(flags));
        let r = server.post(&format!("/v1/cacm/run?{params}"), &topics);
        assert_eq!(r.status, 200, "{params}: {}", r.text());
        assert_eq!(r.header("content-type"), Some("text/plain; charset=utf-8"));
        assert!(
            r.body == std::fs::read(&out).unwrap(),
            "{params}: the run differs from sieve-search run's"
        );
    }
});

sieve_test!(serve_document_routes_equal_show, |dir| {
    let server = Server::cacm(&[]);
    let show = ok(dir
        .cmd("sieve-index")
        .args(["show", "--json", "--index"])
        .arg(cacm())
        .arg("CACM-3134"));
    let want: Value = serde_json::from_str(show.lines().next().unwrap()).unwrap();
    for path in [
        "/v1/cacm/doc/CACM-3134",
        "/api/v1.0/indexes/cacm/documents/CACM-3134",
    ] {
        let v = server.get(path).json();
        assert_eq!(v["docid"], "CACM-3134");
        assert_eq!(v["shown"][0], want, "{path}");
        assert_eq!(v["doc"]["spam"], want["spam"]);
    }
    let marked = server.get("/v1/cacm/doc/CACM-3134?query=retrieval").json();
    let pieces = marked["shown"][0]["text_pieces"].as_array().unwrap();
    let joined: String = pieces.iter().map(|p| p["text"].as_str().unwrap()).collect();
    assert_eq!(
        joined,
        want["text"].as_str().unwrap(),
        "the pieces are the text"
    );
    assert!(pieces.iter().any(|p| {
        p["mark"] == true
            && p["text"]
                .as_str()
                .unwrap()
                .eq_ignore_ascii_case("retrieval")
    }));
    let raw = server.get("/v1/cacm/doc/CACM-3134/raw");
    assert_eq!(raw.header("content-type"), Some("application/octet-stream"));
    let cli_raw = Command::new(bin("sieve-index"))
        .args(["show", "--raw", "--index"])
        .arg(cacm())
        .arg("CACM-3134")
        .output()
        .unwrap()
        .stdout;
    assert_eq!(raw.body, cli_raw);
    assert_eq!(server.get("/v1/cacm/raw?docid=CACM-3134").body, cli_raw);
    let missing = server.get("/v1/cacm/doc/CACM-99999");
    assert_eq!(missing.status, 404);
    assert_eq!(missing.json()["status"], 404);
});

sieve_test!(serve_every_route_answers, |_dir| {
    let server = Server::cacm(&[]);
    let health = server.get("/health").json();
    assert_eq!(health["status"], "ok");
    assert_eq!(health["indexes"][0], "cacm");
    let info = server.get("/v1/cacm").json();
    assert_eq!(info["documents"], 3204);
    assert_eq!(info["positions"], true);
    assert_eq!(server.get("/v1/indexes").json()["indexes"][0], info);
    let yaml = server.get("/openapi.yaml");
    assert!(yaml.text().starts_with("openapi: 3."), "{}", yaml.text());
    assert_eq!(
        yaml.text(),
        std::fs::read_to_string(repo_root().join("docs/openapi.yaml")).unwrap()
    );
    for (path, ty) in [
        ("/", "text/html"),
        ("/docs", "text/html"),
        ("/assets/app.js", "text/javascript"),
        ("/assets/app.css", "text/css"),
    ] {
        let r = server.get(path);
        assert_eq!(r.status, 200, "{path}");
        assert!(r.header("content-type").unwrap().starts_with(ty), "{path}");
        assert!(
            r.header("content-security-policy")
                .unwrap()
                .contains("script-src 'self'")
        );
        assert_eq!(r.header("x-content-type-options"), Some("nosniff"));
    }
    let alias = server
        .get("/api/v1.0/indexes/cacm/search?query=parallel+sorting&hits=5&qid=7")
        .json();
    let main = server
        .get("/v1/cacm/search?query=parallel+sorting&hits=5&qid=7")
        .json();
    assert_eq!(alias["candidates"], main["candidates"]);
    assert_eq!(main["candidates"].as_array().unwrap().len(), 5);
    assert_eq!(
        main["query"]["terms"],
        serde_json::json!(["parallel", "sort"])
    );
    let snip = server
        .get("/v1/cacm/search?query=parallel+sorting&hits=3&snippets=true")
        .json();
    for c in snip["candidates"].as_array().unwrap() {
        let pieces = c["snippet"].as_array().unwrap();
        assert!(pieces.iter().any(|p| p["mark"] == true), "{c}");
    }
});

sieve_test!(serve_answers_have_anserinis_shape, |_dir| {
    let recorded = |f: &str| -> Value {
        serde_json::from_str(
            &std::fs::read_to_string(fixture(&format!("serve/anserini/{f}"))).unwrap(),
        )
        .unwrap()
    };
    let server = Server::cacm(&[]);
    let q = "query=information%20retrieval&hits=10";
    // parse=false: `doc` is a string, as Anserini's for CACM.
    for (file, path) in [
        ("search.json", format!("/v1/cacm/search?{q}&parse=false")),
        (
            "search-parse-false.json",
            format!("/v1/cacm/search?{q}&parse=false"),
        ),
        (
            "search-no-hits.json",
            "/v1/cacm/search?query=the&hits=10".to_string(),
        ),
        ("doc.json", "/v1/cacm/doc/CACM-1410?parse=false".to_string()),
    ] {
        let ours = server.get(&path).json();
        assert_same_shape(&recorded(file), &ours, file);
    }
    // The same documents, in the same order, with the same scores to
    // Anserini's four decimals (BM25 equal to Anserini's).
    let ours = server.get(&format!("/v1/cacm/search?{q}")).json();
    let theirs = recorded("search.json");
    let ids = |v: &Value| -> Vec<(String, String)> {
        v["candidates"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                (
                    c["docid"].as_str().unwrap().to_string(),
                    format!("{:.4}", c["score"].as_f64().unwrap()),
                )
            })
            .collect()
    };
    assert_eq!(ids(&ours), ids(&theirs));
    // parse=true (the default): `doc` is a JSON object, which Anserini's
    // own description allows ("a string, or a JSON object").
    assert!(ours["candidates"][0]["doc"].is_object());
    let text = server.get("/v1/cacm/doc/CACM-1410?parse=false").json();
    assert!(
        text["doc"]
            .as_str()
            .unwrap()
            .contains("Interarrival Statistics for Time Sharing Systems")
    );
    // Errors: Anserini's `error` string.
    for file in [
        "error-missing-query.json",
        "error-hits-zero.json",
        "error-doc-not-found.json",
    ] {
        assert!(recorded(file)["error"].is_string(), "{file}");
    }
    let e = server.get("/v1/cacm/search?hits=0&query=a").json();
    assert!(e["error"].is_string());
});

/// Every key of `anserini` is in `ours` with a value of the same JSON
/// type (numbers alike whether integer or not; arrays by their first
/// element; a `null` in either matches anything).
fn assert_same_shape(anserini: &Value, ours: &Value, at: &str) {
    match (anserini, ours) {
        (Value::Object(a), Value::Object(o)) => {
            for (k, v) in a {
                let Some(ov) = o.get(k) else {
                    panic!("{at}.{k}: missing from sieve's answer")
                };
                assert_same_shape(v, ov, &format!("{at}.{k}"));
            }
        }
        (Value::Array(a), Value::Array(o)) => {
            if let (Some(a0), Some(o0)) = (a.first(), o.first()) {
                assert_same_shape(a0, o0, &format!("{at}[0]"));
            }
        }
        (Value::Null, _) | (_, Value::Null) => {}
        (a, o) => assert_eq!(
            std::mem::discriminant(a),
            std::mem::discriminant(o),
            "{at}: Anserini's {a} against sieve's {o}"
        ),
    }
}

sieve_test!(serve_refuses_hostile_requests_with_json, |_dir| {
    let server = Server::cacm(&[]);
    let long = "a".repeat(1 << 20);
    let many: String = (0..10_000).map(|i| format!("w{i}+")).collect();
    let cases: Vec<(String, u16, Option<&str>)> = vec![
        (format!("/v1/cacm/search?query={many}"), 400, Some("query")),
        ("/v1/cacm/search?query=%FF%FE".into(), 400, Some("query")),
        ("/v1/cacm/search?query=a&hits=-1".into(), 400, Some("hits")),
        (
            "/v1/cacm/search?query=a&hits=99999999999999999999".into(),
            400,
            Some("hits"),
        ),
        ("/v1/cacm/search?query=a&hitz=5".into(), 400, Some("hitz")),
        ("/v1/cacm/search?query=a&query=b".into(), 400, Some("query")),
        ("/v1/cacm/search?hits=5".into(), 400, Some("query")),
        ("/v1/cacm/search?query=a&k1=nan".into(), 400, Some("k1")),
        (
            "/v1/cacm/search?query=a&min_spam_percentile=101".into(),
            400,
            Some("min_spam_percentile"),
        ),
        (
            "/v1/cacm/search?query=a&rm3_fb_terms=5".into(),
            400,
            Some("rm3_fb_terms"),
        ),
        (
            "/v1/cacm/search?query=a&feedback=rm9".into(),
            400,
            Some("feedback"),
        ),
        ("/v1/..%2F..%2Fetc/search?query=a".into(), 404, None),
        ("/v1/../../etc/passwd".into(), 404, None),
        ("/v1/cacm/doc/..%2F..%2Fetc%2Fpasswd".into(), 404, None),
        ("/v1/cacm/doc/%FF".into(), 400, None),
        ("/v1/nope/search?query=a".into(), 404, None),
        ("/v1/cacm/run?tag=a%20b".into(), 405, None),
    ];
    for (path, status, parameter) in cases {
        let r = server.get(&path);
        let shown: String = path.chars().take(60).collect();
        assert_eq!(
            r.status,
            status,
            "{shown}: {}",
            String::from_utf8_lossy(&r.body)
        );
        let v = r.json();
        assert_eq!(v["status"], status, "{shown}");
        assert!(!v["error"].as_str().unwrap().is_empty());
        if let Some(p) = parameter {
            assert_eq!(v["parameter"], p, "{shown}");
        }
    }
    for (body, status) in [
        (&b"\xff\xfe not topics"[..], 400),
        (&vec![b' '; 9 << 20][..], 413),
    ] {
        let r = server.post("/v1/cacm/run", body);
        assert_eq!(r.status, status);
        assert_eq!(r.json()["status"], status);
    }
    assert_eq!(
        server.post("/v1/cacm/run?tag=a%20b", b"1: x\n").json()["parameter"],
        "tag"
    );
    // A 1 MB query: in a URL, refused by hyper (431 past the head's bound,
    // 414 for a request line over 64 KiB; no body); in a form body,
    // refused by the service with a JSON 400.
    let status = server.get(&format!("/v1/cacm/search?query={long}")).status;
    assert!(status == 431 || status == 414, "{status}");
    let line = format!("/v1/cacm/search?query={}", &long[..70_000]);
    assert_eq!(server.get(&line).status, 414);
    let r = server.post("/v1/cacm/search", format!("query={long}").as_bytes());
    assert_eq!(r.status, 400);
    assert_eq!(r.json()["parameter"], "query");
    let r = server.post("/v1/cacm/search", b"query=parallel+sorting&hits=3");
    assert_eq!(r.json()["candidates"].as_array().unwrap().len(), 3);
    // Still serving.
    assert_eq!(server.get("/health").status, 200);
});

sieve_test!(serve_drops_slow_clients_and_keeps_serving, |_dir| {
    let server = Server::cacm(&["--header-seconds", "1"]);
    let mut slow = TcpStream::connect(&server.addr).unwrap();
    slow.write_all(b"GET /health HTTP/1.1\r\nHo").unwrap();
    let started = Instant::now();
    // Others are served while the slow client holds its connection.
    assert_eq!(server.get("/v1/cacm/search?query=sorting").status, 200);
    slow.set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut buf = Vec::new();
    let _ = slow.read_to_end(&mut buf);
    let held = started.elapsed();
    assert!(
        held < Duration::from_secs(5),
        "the trickling client was held {held:?}"
    );
    assert!(
        !String::from_utf8_lossy(&buf).starts_with("HTTP/1.1 200"),
        "{buf:?}"
    );
});

sieve_test!(serve_sigterm_finishes_the_request_in_flight, |_dir| {
    let server = Server::cacm(&[]);
    let addr = server.addr.clone();
    let topics = std::fs::read(repo_root().join("topics/topics.cacm.txt")).unwrap();
    // A batch of every CACM topic with feedback: long enough to be in
    // flight when the signal comes.
    let flight = std::thread::spawn(move || {
        let r = send(
            &addr,
            &post_request("/v1/cacm/run?feedback=rm3&hits=1000", &topics),
        );
        (r.status, r.body.len())
    });
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(server.terminate(), Some(0), "exit code after SIGTERM");
    let (status, len) = flight.join().unwrap();
    assert_eq!(status, 200, "the request in flight was answered");
    assert!(len > 1000);
});

sieve_test!(serve_openapi_describes_every_route, |_dir| {
    let yaml = std::fs::read_to_string(repo_root().join("docs/openapi.yaml")).unwrap();
    let routes = std::fs::read_to_string(repo_root().join("crates/serve/src/routes.rs")).unwrap();
    let mut n = 0;
    for part in routes.split(".route(\"").skip(1) {
        let path = part.split('"').next().unwrap().replace("{name}", "{index}");
        if path.starts_with("/assets/") {
            continue;
        }
        assert!(
            yaml.contains(&format!("\n  {path}:\n")),
            "docs/openapi.yaml lacks {path}"
        );
        n += 1;
    }
    assert!(n >= 12, "{n} routes found");
});
