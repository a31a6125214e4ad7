//! The fast-path code section: how many instructions and conditional branches each
//! contender's allocation call compiles to, read from this very binary.
//!
//! Every (contender, call) pair has a probe below: an `#[inline(never)]` function
//! with an exported name that makes the call through [`Contender`], exactly as the
//! speed table's kernels do, so it is the same code. At report time the binary
//! disassembles itself with `objdump` and counts, from each probe's entry, the
//! instructions up to the first `ret` (the path an allocation that fits takes,
//! when the compiler lays the fast path out first) and the conditional jumps
//! among them. No `objdump`, no numbers: the section says so instead.

use std::hint::black_box;
use std::process::Command;

use crate::contenders::Contender;
use crate::speed::Progress;

/// The calls measured, in table order.
pub const CALLS: [&str; 6] =
    ["alloc::<u8>", "alloc::<u32>", "alloc::<u64>", "alloc::<u128>", "alloc_slice_copy::<u8>", "alloc_str"];

/// Defines the probes of one contender in a module of its own, named
/// `bumpdown_bench_probe_<key>_<call>` in the binary.
macro_rules! probes {
    ($module:ident, $arena:ty, $key:literal) => {
        mod $module {
            use super::*;

            type Arena = $arena;

            #[export_name = concat!("bumpdown_bench_probe_", $key, "_alloc_u8")]
            #[inline(never)]
            fn alloc_u8(arena: &Arena, v: u8) -> &mut u8 {
                Contender::alloc(arena, v)
            }
            #[export_name = concat!("bumpdown_bench_probe_", $key, "_alloc_u32")]
            #[inline(never)]
            fn alloc_u32(arena: &Arena, v: u32) -> &mut u32 {
                Contender::alloc(arena, v)
            }
            #[export_name = concat!("bumpdown_bench_probe_", $key, "_alloc_u64")]
            #[inline(never)]
            fn alloc_u64(arena: &Arena, v: u64) -> &mut u64 {
                Contender::alloc(arena, v)
            }
            #[export_name = concat!("bumpdown_bench_probe_", $key, "_alloc_u128")]
            #[inline(never)]
            fn alloc_u128(arena: &Arena, v: u128) -> &mut u128 {
                Contender::alloc(arena, v)
            }
            #[export_name = concat!("bumpdown_bench_probe_", $key, "_alloc_slice_copy_u8")]
            #[inline(never)]
            fn alloc_slice_copy_u8<'a>(arena: &'a Arena, v: &[u8]) -> &'a mut [u8] {
                Contender::alloc_slice_copy(arena, v)
            }
            #[export_name = concat!("bumpdown_bench_probe_", $key, "_alloc_str")]
            #[inline(never)]
            fn alloc_str<'a>(arena: &'a Arena, v: &str) -> &'a mut str {
                Contender::alloc_str(arena, v)
            }

            /// Calls every probe once (so each is really used) and returns the
            /// symbol names, in [`CALLS`] order.
            pub fn run() -> (&'static str, [String; 6]) {
                let arena = <Arena as Contender>::with_capacity(4096);
                black_box(alloc_u8(black_box(&arena), 1));
                black_box(alloc_u32(black_box(&arena), 2));
                black_box(alloc_u64(black_box(&arena), 3));
                black_box(alloc_u128(black_box(&arena), 4));
                black_box(alloc_slice_copy_u8(black_box(&arena), b"probe"));
                black_box(alloc_str(black_box(&arena), "probe"));
                let name = |call: &str| format!("bumpdown_bench_probe_{}_{call}", $key);
                (
                    <Arena as Contender>::NAME,
                    [
                        name("alloc_u8"),
                        name("alloc_u32"),
                        name("alloc_u64"),
                        name("alloc_u128"),
                        name("alloc_slice_copy_u8"),
                        name("alloc_str"),
                    ],
                )
            }
        }
    };
}

probes!(bumpdown_arena, bumpdown::Arena, "bumpdown");
probes!(bumpdown_vm, bumpdown::VmArena, "vmarena");
probes!(stumpalo_arena, stumpalo::Arena, "stumpalo");
probes!(bumpalo_bump, bumpalo::Bump, "bumpalo");
probes!(bump_scope_bump, bump_scope::Bump, "bump_scope");
probes!(blink, blink_alloc::Blink, "blink");

/// One probe's straight line.
#[derive(Clone, Debug)]
pub struct Probe {
    /// Contender name.
    pub contender: &'static str,
    /// Which call (an entry of [`CALLS`]).
    pub call: &'static str,
    /// Instructions from the entry up to and including the first `ret`; 0 if the
    /// probe could not be read (the listing then holds the reason).
    pub instructions: usize,
    /// Conditional jumps among them.
    pub branches: usize,
    /// What the `call`s among them call (work not inlined, such as `memcpy`).
    pub callees: Vec<String>,
    /// The instructions themselves.
    pub listing: Vec<String>,
}

/// The section's outcome.
#[derive(Clone, Debug)]
pub enum FastPath {
    /// Every probe, contender by contender.
    Counted(Vec<Probe>),
    /// Why there are no counts.
    Unavailable(String),
}

/// Runs every probe once, disassembles this executable and counts.
pub fn measure() -> FastPath {
    let mut progress = Progress::new("fast path".to_owned(), 2);
    progress.show("probes");
    let sets = [
        bumpdown_arena::run(),
        bumpdown_vm::run(),
        stumpalo_arena::run(),
        bumpalo_bump::run(),
        bump_scope_bump::run(),
        blink::run(),
    ];
    progress.show("objdump");
    let outcome = disassemble().map(|asm| {
        let mut probes = Vec::new();
        for (contender, symbols) in &sets {
            for (call, symbol) in CALLS.iter().zip(symbols) {
                probes.push(match straight_line(&asm, symbol) {
                    Ok(listing) => Probe {
                        contender,
                        call,
                        instructions: listing.len(),
                        branches: listing.iter().filter(|i| is_conditional_branch(i)).count(),
                        callees: listing.iter().filter(|i| i.starts_with("call")).map(|i| callee(i)).collect(),
                        listing,
                    },
                    // Shown as "—" with the reason in the listings.
                    Err(why) => {
                        Probe { contender, call, instructions: 0, branches: 0, callees: Vec::new(), listing: vec![why] }
                    }
                });
            }
        }
        probes
    });
    progress.done();
    match outcome {
        Ok(probes) => FastPath::Counted(probes),
        Err(why) => FastPath::Unavailable(why),
    }
}

/// This executable's disassembly, Intel syntax, without raw bytes.
fn disassemble() -> Result<String, String> {
    if !cfg!(target_arch = "x86_64") {
        return Err("the counts are taken on x86-64 only".to_owned());
    }
    let exe = std::env::current_exe().map_err(|e| format!("cannot find own executable: {e}"))?;
    let output = Command::new("objdump")
        .args(["-d", "--no-show-raw-insn", "-M", "intel"])
        .arg(&exe)
        .output()
        .map_err(|e| format!("`objdump` could not be run ({e}); install binutils to get this section"))?;
    if !output.status.success() {
        return Err(format!("`objdump -d` failed: {}", String::from_utf8_lossy(&output.stderr).trim()));
    }
    String::from_utf8(output.stdout).map_err(|_| "`objdump` printed non-UTF-8".to_owned())
}

/// The instructions of `symbol` from its entry up to and including the first `ret`.
fn straight_line(asm: &str, symbol: &str) -> Result<Vec<String>, String> {
    let header = format!("<{symbol}>:");
    let start = asm.find(&header).ok_or_else(|| format!("probe `{symbol}` is not in the disassembly"))?;
    let mut out = Vec::new();
    for line in asm[start..].lines().skip(1) {
        let Some((_, insn)) = line.split_once(":\t") else { break };
        // Collapse objdump's column padding so listings read well in markdown.
        let insn = insn.split_whitespace().collect::<Vec<_>>().join(" ");
        let done = insn.starts_with("ret");
        out.push(insn);
        if done {
            return Ok(out);
        }
    }
    Err(format!("probe `{symbol}`: no `ret` before the next symbol"))
}

/// The function a `call` instruction calls: objdump's `<name@version>` or
/// `<name+offset>` annotation without the suffix, else the operand.
fn callee(insn: &str) -> String {
    match (insn.rfind('<'), insn.rfind('>')) {
        (Some(open), Some(close)) if open < close => {
            let name = &insn[open + 1..close];
            name.split(['@', '+']).next().unwrap_or(name).to_owned()
        }
        _ => insn.trim_start_matches("call").trim().to_owned(),
    }
}

fn is_conditional_branch(insn: &str) -> bool {
    insn.starts_with('j') && !insn.starts_with("jmp")
}

#[cfg(test)]
mod tests {
    use super::*;

    const ASM: &str = "\
0000000000001000 <other>:
    1000:\tret

0000000000001010 <probe_a>:
    1010:\tmov    rax,QWORD PTR [rdi]
    1013:\tsub    rax,0x8
    1017:\tcmp    rax,QWORD PTR [rdi+0x8]
    101b:\tjb     1030 <probe_a+0x20>
    101d:\tmov    QWORD PTR [rdi],rax
    1020:\tret
    1021:\tjmp    2000 <slow>

0000000000001040 <probe_b>:
    1040:\tjmp    2000 <slow>
";

    #[test]
    fn counts_the_straight_line_up_to_the_first_ret() {
        let line = straight_line(ASM, "probe_a").unwrap();
        assert_eq!(line.len(), 6);
        assert_eq!(line[0], "mov rax,QWORD PTR [rdi]");
        assert_eq!(line.iter().filter(|i| is_conditional_branch(i)).count(), 1);
        assert!(straight_line(ASM, "probe_b").is_err(), "a tail call has no ret");
        assert!(straight_line(ASM, "missing").is_err());
        assert_eq!(callee("call QWORD PTR [rip+0x6282e] # 2400f8 <memcpy@GLIBC_2.14>"), "memcpy");
        assert_eq!(callee("call 1234 <slow_path+0x10>"), "slow_path");
        assert_eq!(callee("call rax"), "rax");
    }

    /// The probes are in this test binary too (it is built from the same code), so
    /// with `objdump` present the section can be checked end to end. Tests are built
    /// with less optimisation than the report, so a probe may end in a tail jump
    /// here instead of a `ret`; but every one must be found.
    #[test]
    #[cfg_attr(miri, ignore = "runs objdump")]
    fn every_probe_is_found_and_counted_up_to_its_ret() {
        match measure() {
            FastPath::Counted(probes) => {
                assert_eq!(probes.len(), CALLS.len() * crate::contenders::names().len());
                for p in &probes {
                    let what = format!("{} {}: {:?}", p.contender, p.call, p.listing);
                    if p.instructions == 0 {
                        assert!(p.listing[0].contains("no `ret`"), "{what}");
                    } else {
                        assert!(p.instructions >= 2, "{what}");
                        assert!(p.listing.last().is_some_and(|i| i.starts_with("ret")), "{what}");
                    }
                }
                assert!(probes.iter().any(|p| p.instructions > 0), "no probe was counted");
            }
            FastPath::Unavailable(why) => eprintln!("SKIPPED: {why}"),
        }
    }
}
