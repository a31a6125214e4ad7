//! Real programs nobody here wrote, run with and without the preload: same stdout and
//! exit status, in every mode. A program that is not installed is SKIPPED.

mod common;

use std::path::PathBuf;
use std::process::Command;

use common::{same_as_glibc, skip_unless_installed};

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("bumpdown-programs-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Lines of pseudo-random printable text (xorshift, fixed seed).
fn random_lines(n: usize, seed: u64) -> String {
    let mut x = seed;
    let mut out = String::new();
    for _ in 0..n {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let len = 1 + (x % 60) as usize;
        for j in 0..len {
            out.push(char::from(b'!' + ((x >> (j % 50)) % 94) as u8));
        }
        out.push('\n');
    }
    out
}

const FILECHECK: &str = "/usr/lib/llvm-14/bin/FileCheck";

#[test]
fn filecheck_passing_and_failing() {
    let filecheck = if common::installed("FileCheck-14") { "FileCheck-14" } else { FILECHECK };
    if skip_unless_installed(filecheck) {
        return;
    }
    let dir = temp_dir("filecheck");
    let input = random_lines(20_000, 7);
    std::fs::write(dir.join("input.txt"), &input).unwrap();
    std::fs::write(dir.join("pass.txt"), "CHECK: {{.+}}\n".repeat(20_000)).unwrap();
    let first = input.lines().next().unwrap();
    std::fs::write(dir.join("fail.txt"), format!("CHECK: {first}\nCHECK-NEXT: this line is not in the input\n"))
        .unwrap();
    for (check, expect) in [("pass.txt", 0), ("fail.txt", 1)] {
        let out = same_as_glibc(
            check,
            || {
                let mut c = Command::new(filecheck);
                c.arg(dir.join(check)).arg("--input-file").arg(dir.join("input.txt"));
                c
            },
            None,
        );
        assert_eq!(out.status.code(), Some(expect), "{check}: {}", String::from_utf8_lossy(&out.stderr));
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn python_allocation_heavy() {
    if skip_unless_installed("python3") {
        return;
    }
    let script = "import json\n\
d = {str(i): [i, str(i) * 3, {'k': i}] for i in range(150000)}\n\
s = json.dumps(d)\n\
e = json.loads(s)\n\
del d\n\
print(len(s), sum(v[0] for v in e.values()), sorted(e)[:3])";
    let out = same_as_glibc(
        "python3",
        || {
            let mut c = Command::new("python3");
            c.args(["-c", script]);
            c
        },
        None,
    );
    assert!(out.status.success() && out.stdout.len() > 10);
}

#[test]
fn git_init_commit_log() {
    if skip_unless_installed("git") {
        return;
    }
    let dir = temp_dir("git");
    let script = "set -e; rm -rf repo; git init -q repo; cd repo; \
        for i in $(seq 1 30); do seq $i 3 4000 > f$i.txt; done; git add .; git commit -q -m first; \
        for i in $(seq 1 30 2); do echo change >> f$i.txt; done; git commit -q -am second; \
        git log --stat --format='%H %s'; git diff HEAD~1 --stat; git gc -q; git count-objects -v | grep -v size";
    let out = same_as_glibc(
        "git",
        || {
            let mut c = Command::new("sh");
            c.args(["-c", script]).current_dir(&dir);
            for (k, v) in [("GIT_AUTHOR_DATE", "2020-01-01T00:00:00Z"), ("GIT_COMMITTER_DATE", "2020-01-01T00:00:00Z")]
            {
                c.env(k, v);
            }
            for (k, v) in [
                ("GIT_AUTHOR_NAME", "t"),
                ("GIT_AUTHOR_EMAIL", "t@e"),
                ("GIT_COMMITTER_NAME", "t"),
                ("GIT_COMMITTER_EMAIL", "t@e"),
            ] {
                c.env(k, v);
            }
            c.env("HOME", &dir).env("GIT_CONFIG_NOSYSTEM", "1");
            c
        },
        None,
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains(" second"));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn gcc_compiles_a_file() {
    if skip_unless_installed("gcc") {
        return;
    }
    let dir = temp_dir("gcc");
    let mut src = String::from("#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n");
    for i in 0..300 {
        src.push_str(&format!("static int f{i}(int x) {{ char b[64]; snprintf(b, sizeof b, \"%d\", x * {i}); return (int)strlen(b) + x % {}; }}\n", i + 1));
    }
    src.push_str("int main(void) { int s = 0;\n");
    for i in 0..300 {
        src.push_str(&format!("  s += f{i}({i});\n"));
    }
    src.push_str("  printf(\"%d\\n\", s); return 0; }\n");
    std::fs::write(dir.join("a.c"), src).unwrap();
    let out = same_as_glibc(
        "gcc",
        || {
            let mut c = Command::new("sh");
            c.args(["-c", "gcc -O2 -c a.c -o a.o && gcc a.o -o a && ./a && cmp a.o a.o"]).current_dir(&dir);
            c
        },
        None,
    );
    assert!(out.status.success());
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn sort_large_input() {
    if skip_unless_installed("sort") {
        return;
    }
    let input = random_lines(300_000, 11);
    for args in [&["-S", "64M"][..], &["--parallel=2", "-S", "16M", "-r"][..]] {
        let out = same_as_glibc(
            "sort",
            || {
                let mut c = Command::new("sort");
                c.args(args).env("LC_ALL", "C");
                c
            },
            Some(input.as_bytes()),
        );
        assert!(out.status.success());
        assert_eq!(out.stdout.len(), input.len());
    }
}
