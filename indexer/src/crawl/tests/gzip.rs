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
