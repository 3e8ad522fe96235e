//! Damaged gzip members: a per-record `.warc.gz` with one bad member reads
//! as if that member had been removed, with the skipped compressed span
//! reported; a one-stream file says that nothing after the damage can be
//! recovered.

use super::*;

/// Words from a fixed pseudo-random sequence (so deflate has real work).
fn text(seed: u64, words: usize) -> String {
    let mut x = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let mut s = String::from("<html><body>");
    for _ in 0..words {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let len = 2 + (x >> 60) as usize;
        for k in 0..len {
            s.push(char::from(b'a' + ((x >> ((k * 5 + 3) % 60)) % 26) as u8));
        }
        s.push(' ');
    }
    s.push_str("</body></html>");
    s
}

/// 20 response records, d01..d20.
fn records() -> Vec<Vec<u8>> {
    (1..=20)
        .map(|i| resp(&format!("d{i:02}"), &text(i, 300 + 40 * i as usize)))
        .collect()
}

/// The members of a per-record gzip file, and their start offsets.
fn members(recs: &[Vec<u8>]) -> (Vec<Vec<u8>>, Vec<usize>) {
    let ms: Vec<Vec<u8>> = recs.iter().map(|r| gzip(r)).collect();
    let mut starts = Vec::new();
    let mut at = 0;
    for m in &ms {
        starts.push(at);
        at += m.len();
    }
    (ms, starts)
}

/// The four ways member 10 (index 9) is damaged.
fn damage(m: &[u8], how: &str) -> Vec<u8> {
    let mut m = m.to_vec();
    match how {
        "overwritten" => {
            let mid = m.len() / 2;
            m[mid..mid + 16].fill(0xA5);
        }
        "truncated" => m.truncate(m.len() / 2),
        "bad_crc" => {
            let at = m.len() - 8;
            m[at] ^= 0xFF;
        }
        "bad_magic" => m[0] = 0x00,
        other => panic!("no damage {other}"),
    }
    m
}

fn without_gzip_members(evs: &[CrawlEvent]) -> Vec<CrawlEvent> {
    evs.iter()
        .filter(|e| !matches!(e, CrawlEvent::Anomaly(a) if a.kind == AnomalyKind::GzipMember))
        .cloned()
        .collect()
}

fn gzip_spans(evs: &[CrawlEvent]) -> Vec<(u64, GzipSpan)> {
    evs.iter()
        .filter_map(|e| match e {
            CrawlEvent::Anomaly(a) if a.kind == AnomalyKind::GzipMember => {
                assert_eq!(a.bytes, a.gzip.as_ref().unwrap().compressed_bytes);
                Some((a.offset, a.gzip.clone().unwrap()))
            }
            _ => None,
        })
        .collect()
}

#[test]
fn regression_corrupt_gzip_member_loses_the_rest_of_the_file() {
    let recs = records();
    let (ms, starts) = members(&recs);
    // The reference: the same file with member 10 removed.
    let mut removed = Vec::new();
    let mut plain_removed = Vec::new();
    for (i, m) in ms.iter().enumerate() {
        if i != 9 {
            removed.extend_from_slice(m);
            plain_removed.extend_from_slice(&recs[i]);
        }
    }
    let want = events(&removed);
    assert_eq!(docs(&want).len(), 19);
    assert_eq!(unmember(want.clone()), events(&plain_removed));
    let next_at = u64::try_from(recs[..9].iter().map(Vec::len).sum::<usize>()).unwrap();
    for how in ["overwritten", "truncated", "bad_crc", "bad_magic"] {
        let bad = damage(&ms[9], how);
        let mut file = Vec::new();
        for (i, m) in ms.iter().enumerate() {
            file.extend_from_slice(if i == 9 { &bad } else { m });
        }
        for sizes in [vec![usize::MAX], vec![1, 7, 3], vec![4096], vec![65536, 13]] {
            let (evs, err) = dribble_events(&file, sizes.clone());
            assert!(err.is_none(), "{how} {sizes:?}: {err:?}");
            assert_eq!(
                unmember(without_gzip_members(&evs)),
                unmember(want.clone()),
                "{how} {sizes:?}"
            );
            // Every document names the member it starts in, in this file.
            let mut member_starts = Vec::new();
            let mut at = 0u64;
            for (i, m) in ms.iter().enumerate() {
                member_starts.push(at);
                at += if i == 9 { bad.len() } else { m.len() } as u64;
            }
            for d in docs(&evs) {
                let m = d.span.member.expect("gzip member");
                assert!(member_starts.contains(&m.compressed), "{how}: {m:?}");
                assert!(m.decompressed <= d.offset, "{how}: {m:?} {}", d.offset);
            }
            let spans = gzip_spans(&evs);
            assert_eq!(spans.len(), 1, "{how}: {spans:?}");
            let (offset, span) = &spans[0];
            assert_eq!(span.compressed_offset, starts[9] as u64, "{how}");
            assert_eq!(span.compressed_bytes, bad.len() as u64, "{how}");
            assert_eq!(*offset, next_at, "{how}");
            assert!(!span.reason.is_empty());
        }
    }
}

#[test]
fn gzip_member_span_is_kept_for_the_quarantine() {
    let recs = records();
    let (ms, _) = members(&recs);
    let bad = damage(&ms[9], "overwritten");
    let mut file = Vec::new();
    for (i, m) in ms.iter().enumerate() {
        file.extend_from_slice(if i == 9 { &bad } else { m });
    }
    let keep = CrawlOptions {
        keep_skipped: true,
        ..CrawlOptions::default()
    };
    let (evs, err) = read_all(file.clone(), &keep);
    assert!(err.is_none(), "{err:?}");
    let raw = evs
        .iter()
        .find_map(|e| match e {
            CrawlEvent::Anomaly(a) if a.kind == AnomalyKind::GzipMember => a.raw.clone(),
            _ => None,
        })
        .expect("kept bytes");
    assert_eq!(raw.bytes, bad);
    assert!(!raw.truncated);
    let (plain, _) = read_all(file, &CrawlOptions::default());
    assert_eq!(strip_raw(&evs), plain);
}

#[test]
fn two_damaged_members_in_a_row_are_one_span() {
    let recs = records();
    let (ms, starts) = members(&recs);
    let mut file = Vec::new();
    for (i, m) in ms.iter().enumerate() {
        match i {
            4 => file.extend(damage(m, "bad_crc")),
            5 => file.extend(damage(m, "truncated")),
            _ => file.extend_from_slice(m),
        }
    }
    let (evs, err) = read_all(file, &CrawlOptions::default());
    assert!(err.is_none(), "{err:?}");
    let ids: Vec<&str> = docs(&evs).iter().map(|d| d.docid.as_str()).collect();
    assert_eq!(ids.len(), 18, "{ids:?}");
    assert!(!ids.contains(&"d05") && !ids.contains(&"d06"));
    let spans = gzip_spans(&evs);
    assert_eq!(spans.len(), 1);
    assert_eq!(spans[0].1.compressed_offset, starts[4] as u64);
    assert_eq!(
        spans[0].1.compressed_bytes,
        (starts[6] - starts[4] - ms[5].len() / 2 - ms[5].len() % 2) as u64
    );
}

#[test]
fn regression_one_stream_gzip_damaged_in_the_middle_says_so() {
    let recs = records();
    let plain: Vec<u8> = recs.concat();
    let mut gz = gzip(&plain);
    let mid = gz.len() / 2;
    gz[mid..mid + 32].fill(0x5A);
    for sizes in [vec![usize::MAX], vec![1, 7, 3]] {
        let (evs, err) = dribble_events(&gz, sizes);
        let err = err.expect("an error");
        assert!(err.contains("one-stream gzip"), "{err}");
        assert!(err.contains("nothing after compressed offset"), "{err}");
        assert!(
            err.contains("member starting at compressed offset 0"),
            "{err}"
        );
        let d = docs(&evs);
        assert!(d.len() >= 5, "{}", d.len());
        // Output decoded past the damage, before the decoder noticed, may
        // be garbage: only the records well before it are checked.
        for (i, doc) in d.iter().enumerate().take(5) {
            assert_eq!(doc.docid, format!("d{:02}", i + 1));
            assert!(!doc.truncated);
        }
        assert!(gzip_spans(&evs).is_empty());
    }
}

#[test]
fn damaged_last_member_is_an_error_naming_its_start() {
    let recs = records();
    let (ms, starts) = members(&recs);
    let mut file: Vec<u8> = ms[..19].concat();
    file.extend(damage(&ms[19], "overwritten"));
    let (evs, err) = read_all(file, &CrawlOptions::default());
    match err {
        Some(Error::Gzip {
            member_offset,
            ref detail,
            ..
        })
        | Some(Error::TruncatedGzip {
            member_offset,
            ref detail,
            ..
        }) => {
            assert_eq!(member_offset, starts[19] as u64);
            assert!(detail.contains("no intact gzip member follows"), "{detail}");
        }
        other => panic!("expected a gzip error, got {other:?}"),
    }
    assert!(docs(&evs).len() >= 19);
}

/// Events and the error's text, read with gzip inflated on its own thread
/// ([`CrawlOptions::inflate_ahead`]) and on the reading thread.
fn ahead_and_inline(file: &[u8], opts: &CrawlOptions) -> [(Vec<CrawlEvent>, Option<String>); 2] {
    let ahead = CrawlOptions {
        inflate_ahead: true,
        ..opts.clone()
    };
    [&ahead, opts].map(
        |o| match from_reader("f", std::io::Cursor::new(file.to_vec()), o) {
            Ok(r) => {
                let (evs, err) = collect(r);
                (evs, err.map(|e| e.to_string()))
            }
            // Damage to the magic bytes makes the file no crawl at all:
            // both paths must refuse it the same way.
            Err(e) => (Vec::new(), Some(e.to_string())),
        },
    )
}

/// The property test found this: a one-stream file whose first byte is
/// damaged is no longer sniffed as gzip, and the comparison unwrapped the
/// refusal instead of comparing it.
#[test]
fn regression_damaged_magic_byte_is_refused_the_same_on_both_paths() {
    let mut file = gzip(&records().concat());
    file[0] ^= 1;
    let [ahead, inline] = ahead_and_inline(&file, &CrawlOptions::default());
    assert_eq!(ahead, inline);
    assert!(ahead.0.is_empty());
    let err = ahead.1.expect("the refusal");
    assert!(err.contains("unknown crawl format"), "{err}");
}

/// A one-stream gzip file of `n` records whose output passes the 8 MiB
/// that a member's output is held back for.
fn big_one_stream(n: u64) -> Vec<u8> {
    let plain: Vec<u8> = (1..=n)
        .flat_map(|i| resp(&format!("b{i:04}"), &text(i, 3000)))
        .collect();
    assert!(
        plain.len() as u64 > super::super::gzmember::HOLD,
        "{}",
        plain.len()
    );
    gzip(&plain)
}

#[test]
fn ahead_reads_as_inline() {
    let recs = records();
    let (ms, _) = members(&recs);
    let mut files: Vec<(String, Vec<u8>)> = vec![
        ("per-record".into(), ms.concat()),
        ("one-stream".into(), gzip(&recs.concat())),
        ("empty".into(), gzip(b"")),
        ("repetitive one-stream".into(), gzip(&recs[0].repeat(300))),
        (
            "repetitive per-record".into(),
            gzip(&recs[0].repeat(3)).repeat(100),
        ),
    ];
    for how in ["overwritten", "truncated", "bad_crc", "bad_magic"] {
        let mut file = Vec::new();
        for (i, m) in ms.iter().enumerate() {
            file.extend(if i == 9 { damage(m, how) } else { m.clone() });
        }
        files.push((format!("member 10 {how}"), file));
        let mut last = ms[..19].concat();
        last.extend(damage(&ms[19], how));
        files.push((format!("last member {how}"), last));
    }
    let one = gzip(&recs.concat());
    let mut mid = one.clone();
    let m = mid.len() / 2;
    mid[m..m + 32].fill(0x5A);
    files.push(("one-stream damaged".into(), mid));
    files.push(("one-stream truncated".into(), one[..one.len() / 2].to_vec()));
    let big = big_one_stream(450);
    files.push((
        "big one-stream truncated".into(),
        big[..big.len() - 100].to_vec(),
    ));
    let mut big_mid = big.clone();
    let m = big_mid.len() * 3 / 4;
    big_mid[m..m + 64].fill(0xA5);
    let mut big_mid_then = big_mid.clone();
    big_mid_then.extend(ms[4..].concat());
    files.push(("big one-stream damaged past the hold".into(), big_mid));
    files.push((
        "big member damaged past the hold, then intact ones".into(),
        big_mid_then,
    ));
    // The big stream as the first member, then a damaged one, then intact
    // members: the hold and a retraction after it.
    let mut mixed = big.clone();
    mixed.extend(damage(&ms[3], "bad_crc"));
    mixed.extend(ms[4..].concat());
    files.push(("big member then a damaged one".into(), mixed));
    files.push(("big".into(), big));
    let bomb = CrawlOptions {
        max_decompression_ratio: 1,
        bomb_min_output: 100_000,
        ..CrawlOptions::default()
    };
    let keep = CrawlOptions {
        keep_skipped: true,
        ..CrawlOptions::default()
    };
    let (mut errors, mut bombs, mut gaps) = (0, 0, 0);
    for (name, file) in &files {
        for (oname, opts) in [
            ("default", CrawlOptions::default()),
            ("bomb", bomb.clone()),
            ("keep", keep.clone()),
        ] {
            let [ahead, inline] = ahead_and_inline(file, &opts);
            assert_eq!(ahead.1, inline.1, "{name} {oname}");
            assert!(ahead.0 == inline.0, "{name} {oname}: events differ");
            errors += usize::from(ahead.1.is_some());
            bombs += usize::from(ahead.1.as_ref().is_some_and(|e| e.contains("ratio")));
            gaps += gzip_spans(&ahead.0).len();
        }
    }
    // The cases do what they are named for: errors, bombs and skipped
    // members on both paths.
    assert!(
        errors >= 20 && bombs >= 2 && gaps >= 15,
        "{errors} {bombs} {gaps}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn prop_ahead_reads_as_inline_damaged_anywhere(
        edits in proptest::collection::vec((any::<u32>(), any::<u8>()), 1..4),
        cut in proptest::option::of(any::<u32>()),
        stream in any::<bool>(),
    ) {
        let recs = records();
        let mut file = if stream { gzip(&recs.concat()) } else { members(&recs).0.concat() };
        for (at, b) in edits {
            let i = at as usize % file.len();
            file[i] ^= b | 1;
        }
        if let Some(c) = cut {
            file.truncate(c as usize % file.len() + 1);
        }
        let [ahead, inline] = ahead_and_inline(&file, &CrawlOptions::default());
        prop_assert_eq!(ahead.1, inline.1);
        prop_assert!(ahead.0 == inline.0, "events differ");
    }
}
