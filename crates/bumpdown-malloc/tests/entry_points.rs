//! Every exported entry point, checked by a C program (tests/entry_points.c) run with the
//! library preloaded: in the default mode, in bump mode, and with caps that force the
//! glibc fallback part-way or from the start.

mod common;

use std::path::PathBuf;
use std::process::Command;

/// Compiles tests/entry_points.c into a fresh temporary directory; returns both.
fn compile_entry_points(name: &str) -> (PathBuf, PathBuf) {
    let dir = std::env::temp_dir().join(format!("bumpdown-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let exe = dir.join("entry_points");
    let src = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/entry_points.c");
    let status = Command::new("cc").args(["-O1", "-w", "-pthread", "-o"]).arg(&exe).arg(src).status().unwrap();
    assert!(status.success(), "compiling entry_points.c failed");
    (dir, exe)
}

#[test]
fn c_entry_points_under_every_setting() {
    if common::skip_unless_installed("cc") {
        return;
    }
    let so = common::library();
    let (dir, exe) = compile_entry_points("entry-points");
    let so = so.display().to_string();
    let settings: [&[(&str, &str)]; 5] = [
        &[],
        &[("BUMPDOWN_MODE", "bump")],
        &[("BUMPDOWN_LIMIT", "64K")],
        &[("BUMPDOWN_LIMIT", "0")],
        &[("BUMPDOWN_MODE", "bump"), ("BUMPDOWN_LIMIT", "100K")],
    ];
    for setting in settings {
        let mut env = vec![("LD_PRELOAD", so.as_str())];
        env.extend_from_slice(setting);
        let out = common::run(Command::new(&exe), &env, None);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && stdout.contains("entry points: ok"),
            "{setting:?}: {:?}\n{stdout}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        if setting.is_empty() {
            // The preload was really in effect: 1 byte takes a bare 16-byte zone chunk
            // (glibc's smallest block has 24 usable bytes).
            assert!(stdout.contains("usable(1)=16"), "{stdout}");
            // mallinfo2 is ours too, not glibc's (which counts its heap's free top chunk).
            assert!(stdout.contains("mallinfo2: ordblks=0 fordblks=0"), "{stdout}");
            // An over-aligned request reuses a freed plain block of its class.
            assert!(stdout.contains("aligned block in the freed plain one: yes"), "{stdout}");
            // A block that moves to grow by a few bytes gets a quarter more (`realloc`'s
            // GROW_MIN rule): 4000 bytes take the 4,096-byte class (4,088 usable), the
            // move asks for 5,110 and gets the 5,120-byte class.
            assert!(stdout.contains("realloc step: 4088 -> 5112"), "{stdout}");
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// A process whose address space is capped below the region's reservation: the `mmap`
/// of the reservation is refused, and every entry point still works, on glibc.
#[test]
fn a_refused_reservation_falls_back_to_glibc() {
    use std::os::unix::process::CommandExt;
    if common::skip_unless_installed("cc") {
        return;
    }
    let so = common::library().display().to_string();
    let (dir, exe) = compile_entry_points("refused");
    let mut cmd = Command::new(&exe);
    // SAFETY: `setrlimit` is async-signal-safe, and the closure touches nothing else of
    // the parent between fork and exec.
    unsafe {
        cmd.pre_exec(|| {
            // 256 MiB of address space: room for the program and glibc's heap, far below
            // the region's reservation.
            let cap = libc::rlimit { rlim_cur: 256 << 20, rlim_max: 256 << 20 };
            if libc::setrlimit(libc::RLIMIT_AS, &cap) == 0 {
                Ok(())
            } else {
                Err(std::io::Error::last_os_error())
            }
        });
    }
    let out = common::run(cmd, &[("LD_PRELOAD", so.as_str())], None);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("entry points: ok"),
        "{:?}\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    // The region served nothing: its 16 usable bytes behind `malloc(1)` (a bare zone
    // chunk) are not there (a fallback block reports the size asked for).
    assert!(stdout.contains("usable(1)=") && !stdout.contains("usable(1)=16"), "{stdout}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn stats_line_at_exit() {
    // Python exits through exit(): coreutils close stderr in an atexit handler before the
    // report, and dash leaves with _exit (no report at all).
    if common::skip_unless_installed("python3") {
        return;
    }
    let so = common::library().display().to_string();
    let mut cmd = Command::new("python3");
    cmd.args(["-c", "import os; print(len([str(i) for i in range(100000)]), os.getpid())"]);
    let out = common::run(cmd, &[("LD_PRELOAD", &so), ("BUMPDOWN_STATS", "1")], None);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    let (count, pid) = stdout.trim().split_once(' ').expect("count and pid");
    assert_eq!(count, "100000");
    // A launcher script may print lines of its own; the Python process used over 1 MiB.
    let used = |l: &str| -> usize {
        l.split(" used=").nth(1).and_then(|r| r.split(' ').next()).and_then(|n| n.parse().ok()).unwrap_or(0)
    };
    let line = stderr
        .lines()
        .filter(|l| l.starts_with("bumpdown: mode=recycle"))
        .max_by_key(|l| used(l))
        .unwrap_or_else(|| panic!("no stats line: {stderr}"));
    assert!(used(line) > 1 << 20, "{line}");
    for field in ["reserved=4294967296", "used=", "peak=", "fallbacks=", "huge_pages=", "maxrss_kib="] {
        assert!(line.contains(field), "{line}");
    }
    // The line says which process it is: a run of several programs can tell them apart.
    assert!(line.contains(&format!(" pid={pid} ")), "not process {pid}: {line}");
    assert!(line.contains(" exe=") && line.contains("python"), "{line}");
}
