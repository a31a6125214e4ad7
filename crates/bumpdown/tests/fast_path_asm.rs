//! The fast path's size is part of the product: this test builds
//! `examples/fast_path_probes.rs` in release mode, disassembles it with `objdump`, and
//! counts the instructions and conditional branches of each probe up to its first `ret`
//! (`bumpdown-disasm`, which the bench's fast-path table counts with too).
//! The scope enter / exit probes loop, so they are counted by running them under callgrind
//! instead (skipped, with a message, when valgrind is not installed).

#![cfg(all(target_arch = "x86_64", target_os = "linux"))]

use std::path::PathBuf;
use std::process::Command;

use bumpdown_disasm::{is_conditional_branch, Listing};

/// Builds the probes (release) and returns the binary.
fn probes() -> PathBuf {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    // Beside this test binary's own build (`<target dir>/<profile>/deps/`), wherever
    // cargo put it.
    let target = std::env::current_exe().unwrap().ancestors().nth(3).unwrap().join("fast-path-probes");
    let status = Command::new(env!("CARGO"))
        .args(["build", "--release", "--quiet", "--example", "fast_path_probes", "-p", "bumpdown"])
        .env("CARGO_TARGET_DIR", &target)
        .current_dir(&manifest)
        .status()
        .expect("cannot run cargo");
    assert!(status.success(), "building the probes failed");
    target.join("release/examples/fast_path_probes")
}

/// Builds the probes and returns the disassembly, or `None` (with a message) if
/// `objdump` is missing.
fn disassembly() -> Option<Listing> {
    match Listing::of(&probes()) {
        Ok(listing) => Some(listing),
        Err(why) => {
            eprintln!("SKIPPED: {why}; fast-path instruction counts not checked");
            None
        }
    }
}

#[test]
#[cfg_attr(miri, ignore = "runs cargo and objdump")]
fn the_slow_path_costs_its_callers_little() {
    // Every allocation site inlines the call to the slow path and what follows it; the
    // compiler weighs that code when it decides whether to inline the caller's own
    // functions (a parser's `fn bin(&self, ..)` with two `alloc`s in it). With the
    // arena's address kept out of the call, the call takes the bump pointer, the high
    // mark (which holds the settings until the arena has its bookkeeping block) and the
    // state by value; on `Global` all its arguments travel in registers, and the six
    // mirrored fields come back in one copy. The whole probe, fast path and slow path,
    // was 44 instructions with the settings and the allocator's address passed too and
    // the fields copied one by one; it is 34.
    let Some(asm) = disassembly() else { return };
    let body = asm.whole_function("bumpdown_probe_alloc_u64").unwrap();
    eprintln!("bumpdown_probe_alloc_u64, whole:\n    {}", body.join("\n    "));
    assert!(body.len() <= 36, "Arena::alloc::<u64> with its slow path: {} instructions", body.len());
}

struct Count {
    instructions: usize,
    branches: usize,
    top_loads: usize,
    prefetches: usize,
}

fn count(asm: &Listing, symbol: &str, arena_reg: &str) -> Count {
    let lines = asm.straight_line(symbol).unwrap();
    eprintln!("{symbol}:\n    {}", lines.join("\n    "));
    Count {
        instructions: lines.len(),
        branches: lines.iter().filter(|i| is_conditional_branch(i)).count(),
        top_loads: lines
            .iter()
            .filter(|i| i.starts_with("mov") && i.ends_with(&format!("QWORD PTR [{arena_reg}]")))
            .count(),
        prefetches: lines.iter().filter(|i| i.starts_with("prefetch")).count(),
    }
}

#[test]
#[cfg_attr(miri, ignore = "builds and disassembles a release binary")]
fn fast_paths_are_short_straight_lines() {
    let Some(asm) = disassembly() else { return };
    // The bar: one conditional branch and at most 8 instructions including `ret`
    // (load, add, and, compare, branch, store the value, store the pointer, ret), plus one
    // when the block is not the old pointer (a type aligned more than MIN_ALIGN): the
    // `lea` that returns it, `size` below the new pointer. It comes after the branch, off
    // the chain from one bump to the next, and an inlined caller folds it into the
    // store's address. Values wider than a register take extra moves to store: a `u128`
    // one more, the 24-byte struct three more (it is copied in from memory).
    for (probe, extra) in [("u8", 0), ("u16", 1), ("u32", 1), ("u64", 1), ("u128", 2), ("struct24", 4), ("u32_min8", 0)]
    {
        let c = count(&asm, &format!("bumpdown_probe_alloc_{probe}"), "rdi");
        assert_eq!(c.branches, 1, "alloc::<{probe}>: {} conditional branches", c.branches);
        let limit = 8 + extra;
        assert!(c.instructions <= limit, "alloc::<{probe}>: {} instructions", c.instructions);
        assert_eq!(c.top_loads, 1, "alloc::<{probe}> loads top {} times", c.top_loads);
    }
    // Alignment folds away when MIN_ALIGN covers the type, and for bytes.
    for probe in ["u8", "u32_min8"] {
        let c = count(&asm, &format!("bumpdown_probe_alloc_{probe}"), "rdi");
        assert!(c.instructions <= 7, "alloc::<{probe}> did not fold its alignment");
    }
    // Several allocations in a row: one branch each, but `top` is loaded only once.
    let c = count(&asm, "bumpdown_probe_alloc_3x_u64", "rsi");
    assert_eq!(c.branches, 3);
    assert_eq!(c.top_loads, 1, "top reloaded between allocations");
    // A scope handle has the same fast path when it is not inlined, and no stack frame:
    // its slow path, panic included, is out of line, as `Arena`'s is. (With the panic in
    // the caller's tail it had one: three pushes, `add rsp`, two pops and a register copy,
    // 16 instructions.)
    let c = count(&asm, "bumpdown_probe_scope_alloc_u64", "rdi+0x8");
    assert_eq!(c.branches, 1);
    assert_eq!(c.top_loads, 1);
    assert!(c.instructions <= 9, "Scope::alloc::<u64>: {} instructions", c.instructions);
    // In a loop through a scope handle, `top` and `bottom` stay in registers: the loop
    // body reads no memory at all.
    let body = asm.loop_body("bumpdown_probe_scope_loop_u64").unwrap();
    eprintln!("scope loop body:\n    {}", body.join("\n    "));
    assert!(body.len() <= 12, "scope loop body is {} instructions", body.len());
    let loads: Vec<_> = body.iter().filter(|i| i.starts_with("mov") && i.contains(",QWORD PTR [")).collect();
    assert!(loads.is_empty(), "the scope loop reloads from memory: {loads:?}");
    // `VmArena` bumps upwards: rounding up and adding the size take one instruction
    // more than bumping down (where one subtraction does both) for aligned types, and
    // each allocation prefetches the line 2 KiB above the new bump pointer (one more).
    for (probe, limit) in [("u8", 8), ("u32", 10), ("u64", 10)] {
        let c = count(&asm, &format!("bumpdown_probe_vm_alloc_{probe}"), "rdi");
        assert_eq!(c.branches, 1, "VmArena::alloc::<{probe}>: {} conditional branches", c.branches);
        assert!(c.instructions <= limit, "VmArena::alloc::<{probe}>: {} instructions", c.instructions);
        assert_eq!(c.top_loads, 1, "VmArena::alloc::<{probe}> loads top {} times", c.top_loads);
        assert_eq!(c.prefetches, 1, "VmArena::alloc::<{probe}>: {} prefetches", c.prefetches);
    }
    // `Arena`'s fast path has none (its bar is 8 instructions; the prefetch was measured
    // on `VmArena` only).
    let c = count(&asm, "bumpdown_probe_alloc_u64", "rdi");
    assert_eq!(c.prefetches, 0, "Arena::alloc::<u64> prefetches");
    // Run-time lengths: one branch for the bump (the capacity check covers overflow
    // too), and one that sends copies over 64 bytes to `memcpy` (the compiler lays that
    // path out first); shorter ones are copied inline, off this line (`copy.rs`).
    for probe in ["alloc_slice_copy_u8", "alloc_str"] {
        let c = count(&asm, &format!("bumpdown_probe_{probe}"), "rdi");
        assert_eq!(c.branches, 2, "{probe}: {} conditional branches", c.branches);
        assert_eq!(c.top_loads, 1, "{probe} loads top {} times", c.top_loads);
    }
}

/// Instructions executed inside `symbol` by the probes binary run with `args`, counted by
/// callgrind (deterministic, unlike a clock); `None` if valgrind is missing.
fn callgrind_count(binary: &std::path::Path, symbol: &str, args: &[&str]) -> Option<u64> {
    let out = Command::new("valgrind")
        .args(["--tool=callgrind", "--callgrind-out-file=/dev/null", &format!("--toggle-collect={symbol}")])
        .arg(binary)
        .args(args)
        .output()
        .ok()?;
    assert!(out.status.success(), "valgrind failed: {}", String::from_utf8_lossy(&out.stderr));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let collected = stderr.lines().find_map(|l| l.split_once("Collected : ")).map(|(_, n)| n.trim().to_string());
    Some(collected.expect("no callgrind total").parse().expect("callgrind total"))
}

#[test]
#[cfg_attr(miri, ignore = "builds a release binary and runs it under valgrind")]
fn scope_entry_and_exit_are_short() {
    let binary = probes();
    // One round: enter a scope, four `alloc(u64)` through it, leave (the bench's enter /
    // exit kernel). The difference of two runs leaves out the setup. stumpalo's
    // `with_scope` takes 40 instructions for the same round and bump-scope's `scoped` 47;
    // before the entry shrank to two words these took 66 (closure) and 64 (guard), and
    // 36 and 43 while the arena bumped down (each upward `alloc` returns its block with
    // one more instruction, see above).
    // `scratch` adds the thread's depth (a check and a store on entry, a check and a
    // store on exit, on a thread-local) and, unlike the probe of a scope, reloads the
    // arena's pointers each round (the arena is the thread's, not an argument): 56
    // instructions; 57 while its exit compared the arena's address with the depth-0
    // arena's, 68.5 before it stopped reading the arena's state to decide whether to trim.
    for (kind, limit) in [("scope", 40), ("guard", 47), ("scratch", 56)] {
        let symbol = format!("bumpdown_probe_{kind}_enter_exit");
        let Some(short) = callgrind_count(&binary, &symbol, &["enter-exit", kind, "1000"]) else {
            eprintln!("SKIPPED: valgrind is not available, scope entry and exit not counted");
            return;
        };
        let long = callgrind_count(&binary, &symbol, &["enter-exit", kind, "2000"]).expect("valgrind");
        let per_round = (long - short) as f64 / 1000.0;
        eprintln!("{kind}: {per_round} instructions per round");
        assert!(per_round <= limit as f64, "{kind}: {per_round} instructions per enter / 4 x alloc / exit round");
    }
}
