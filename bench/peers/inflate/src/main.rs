//! Inflates every gzip member of a directory of per-record `.warc.gz` files with two backends,
//! in interleaved rounds, and prints the median seconds of each and their ratio.
//!
//!     inflate-backends DIR ROUNDS
//!
//! * `zlib-rs`: flate2's `Decompress` on the zlib-rs backend (what sieve's gzip reader uses),
//!   streaming each member into a 256 KiB buffer and checking its CRC-32 against the trailer.
//! * `libdeflate`: `libdeflater::Decompressor::gzip_decompress`, which inflates one whole member
//!   into a buffer big enough for it and checks the CRC-32 itself.
//!
//! libdeflater's safe API needs each member's exact compressed bytes (it does not return how
//! many it read), so an untimed first pass finds the member boundaries with flate2; the timed
//! passes then inflate the same members. Both must give the same member count and output bytes.
use std::time::Instant;

use flate2::{Crc, Decompress, FlushDecompress, Status};

/// Length of a gzip header starting at `data[0]` (RFC 1952).
fn header_len(data: &[u8]) -> usize {
    let flg = data[3];
    let mut h = 10;
    if flg & 4 != 0 {
        h += 2 + u16::from_le_bytes([data[h], data[h + 1]]) as usize;
    }
    for bit in [8, 16] {
        if flg & bit != 0 {
            h += data[h..].iter().position(|&b| b == 0).expect("terminated name") + 1;
        }
    }
    if flg & 2 != 0 {
        h += 2;
    }
    h
}

/// Inflates the member at the start of `data` with zlib-rs; returns (its compressed length,
/// its output length).
fn zlib_rs_member(d: &mut Decompress, data: &[u8], buf: &mut Vec<u8>) -> (usize, u64) {
    let h = header_len(data);
    d.reset(false);
    let mut crc = Crc::new();
    loop {
        buf.clear();
        let st = (d.decompress_vec(&data[h + d.total_in() as usize..], buf, FlushDecompress::None))
            .expect("a valid deflate stream");
        crc.update(buf);
        if st == Status::StreamEnd {
            break;
        }
    }
    let end = h + d.total_in() as usize;
    let want = u32::from_le_bytes(data[end..end + 4].try_into().expect("trailer"));
    assert_eq!(crc.sum(), want, "CRC-32");
    (end + 8, d.total_out())
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (dir, rounds) = match &args[..] {
        [_, dir, rounds] => (dir, rounds.parse::<usize>().expect("ROUNDS")),
        _ => panic!("usage: inflate-backends DIR ROUNDS"),
    };
    let mut files: Vec<_> = (std::fs::read_dir(dir).expect("DIR").map(|e| e.expect("entry").path()))
        .filter(|p| p.to_string_lossy().ends_with(".warc.gz"))
        .collect();
    files.sort();
    let datas: Vec<Vec<u8>> = files.iter().map(|f| std::fs::read(f).expect("read")).collect();
    let size: usize = datas.iter().map(Vec::len).sum();
    let mut d = Decompress::new(false);
    let mut buf = Vec::with_capacity(256 << 10);
    // Untimed: member boundaries and the largest member's output.
    let mut members: Vec<(usize, usize, usize)> = Vec::new(); // (file, start, end)
    let mut largest = 0u64;
    for (i, data) in datas.iter().enumerate() {
        let mut pos = 0;
        while pos < data.len() {
            let (len, out) = zlib_rs_member(&mut d, &data[pos..], &mut buf);
            members.push((i, pos, pos + len));
            largest = largest.max(out);
            pos += len;
        }
    }
    let mut whole = vec![0u8; largest as usize];
    let mut lib = libdeflater::Decompressor::new();
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for round in 0..rounds {
        let t = Instant::now();
        let mut out_a = 0u64;
        for &(i, s, e) in &members {
            out_a += zlib_rs_member(&mut d, &datas[i][s..e], &mut buf).1;
        }
        a.push(t.elapsed().as_secs_f64());
        let t = Instant::now();
        let mut out_b = 0u64;
        for &(i, s, e) in &members {
            out_b += lib.gzip_decompress(&datas[i][s..e], &mut whole).expect("libdeflate") as u64;
        }
        b.push(t.elapsed().as_secs_f64());
        assert_eq!(out_a, out_b, "same output");
        eprintln!("round {round}: zlib-rs {:.3} s, libdeflate {:.3} s", a[round], b[round]);
    }
    a.sort_by(f64::total_cmp);
    b.sort_by(f64::total_cmp);
    let (ma, mb) = (a[rounds / 2], b[rounds / 2]);
    let mb_s = |s: f64| size as f64 / 1e6 / s;
    println!(
        "{} files, {} members, {:.1} MB compressed: zlib-rs {ma:.3} s ({:.1} MB/s), libdeflate {mb:.3} s ({:.1} MB/s): libdeflate {:.2}x the speed",
        files.len(),
        members.len(),
        size as f64 / 1e6,
        mb_s(ma),
        mb_s(mb),
        ma / mb
    );
}
