//! The workloads shared by the three binaries (`json-glibc`, `json-mimalloc`,
//! `json-bumpdown`), which differ only in their `#[global_allocator]`: JSON (below), or,
//! with the argument `syn`, a Rust source parsed with `syn` ([`rust_source`]).
//!
//! It writes a JSON document of about 100 MB (fixed seed) to a temporary file, reads it
//! back, parses it into a `serde_json::Value`, walks the tree and prints a summary: a
//! short-lived program whose time goes into allocating and freeing many small objects.
//! `bench.sh` runs the three binaries interleaved and reports time and peak RSS.

use std::fs;
use std::io::{BufWriter, Write};
use std::path::PathBuf;

use serde_json::Value;

pub mod rust_source;

/// Records in the document (about 330 bytes each).
pub const RECORDS: usize = 300_000;

/// A small xorshift generator: the document is the same on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

const WORDS: [&str; 8] = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"];

/// Writes the document to `path`.
pub fn generate(path: &PathBuf, records: usize) -> std::io::Result<()> {
    let mut out = BufWriter::new(fs::File::create(path)?);
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    out.write_all(b"[")?;
    for i in 0..records {
        if i > 0 {
            out.write_all(b",")?;
        }
        let r = rng.next();
        let w = |k: u64| WORDS[((r >> (k % 64)) % 8) as usize];
        write!(
            out,
            r#"{{"id":{i},"name":"{}-{}-{}","score":{},"active":{},"#,
            w(3),
            w(6),
            w(9),
            (r % 100_000) as f64 / 1000.0,
            r & 1 == 0
        )?;
        write!(out, r#""tags":["#)?;
        for t in 0..(r % 7) {
            write!(out, r#"{}"{}""#, if t > 0 { "," } else { "" }, w(12 + t * 3))?;
        }
        write!(out, r#"],"pos":{{"x":{},"y":{},"z":{}}},"#, (r >> 20) % 1000, (r >> 30) % 1000, (r >> 40) % 1000)?;
        write!(out, r#""history":["#)?;
        for h in 0..(r % 5) {
            write!(
                out,
                r#"{}{{"t":{},"event":"{}","delta":{}}}"#,
                if h > 0 { "," } else { "" },
                i as u64 * 10 + h,
                w(h * 5),
                (r >> h) % 97
            )?;
        }
        write!(out, r#"],"note":"{}"}}"#, "x".repeat((r % 40) as usize))?;
    }
    out.write_all(b"]")?;
    out.flush()
}

/// What the walk found.
#[derive(Debug, Default, PartialEq)]
pub struct Summary {
    /// Values of every kind.
    pub nodes: u64,
    /// Sum of the lengths of all strings and keys.
    pub string_bytes: u64,
    /// Sum of all numbers, truncated.
    pub number_sum: i64,
}

/// Walks `v` depth-first.
pub fn walk(v: &Value, s: &mut Summary) {
    s.nodes += 1;
    match v {
        Value::Number(n) => s.number_sum += n.as_f64().unwrap_or(0.0) as i64,
        Value::String(t) => s.string_bytes += t.len() as u64,
        Value::Array(a) => a.iter().for_each(|x| walk(x, s)),
        Value::Object(o) => o.iter().for_each(|(k, x)| {
            s.string_bytes += k.len() as u64;
            walk(x, s)
        }),
        Value::Null | Value::Bool(_) => {}
    }
}

/// The whole program: generate, parse, walk, print, remove the file (or, with the
/// argument `syn`, the Rust source workload). What it prints on
/// standard output is the same under every allocator (the benchmark compares it); the
/// allocator's name goes to standard error.
pub fn run(allocator: &str) {
    let arg = std::env::args().nth(1);
    if arg.as_deref() == Some("syn") {
        let counts = rust_source::parse_and_count(rust_source::FUNCTIONS);
        eprintln!("{allocator}");
        println!("{} functions, {counts:?}", rust_source::FUNCTIONS);
        return;
    }
    let records = arg.and_then(|a| a.parse().ok()).unwrap_or(RECORDS);
    let path = std::env::temp_dir().join(format!("bumpdown-json-{}.json", std::process::id()));
    generate(&path, records).expect("writing the document");
    let text = fs::read_to_string(&path).expect("reading the document");
    fs::remove_file(&path).ok();
    let value: Value = serde_json::from_str(&text).expect("parsing the document");
    drop(text);
    let mut summary = Summary::default();
    walk(&value, &mut summary);
    eprintln!("{allocator}");
    println!("{records} records, {summary:?}");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn document_parses_and_walks_the_same_every_time() {
        let path = std::env::temp_dir().join(format!("bumpdown-json-test-{}.json", std::process::id()));
        generate(&path, 1000).unwrap();
        let text = fs::read_to_string(&path).unwrap();
        fs::remove_file(&path).ok();
        let value: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(value.as_array().unwrap().len(), 1000);
        let (mut a, mut b) = (Summary::default(), Summary::default());
        walk(&value, &mut a);
        walk(&serde_json::from_str(&text).unwrap(), &mut b);
        assert_eq!(a, b);
        assert!(a.nodes > 10_000 && a.string_bytes > 50_000, "{a:?}");
    }
}
