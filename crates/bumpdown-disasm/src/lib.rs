//! Reading `objdump -d` listings, the one way the bench's fast-path table and the
//! instruction-count tests of `bumpdown` and `bumpdown-c` count machine code.
//!
//! A [`Listing`] is the Intel-syntax disassembly of one file, without raw bytes (what
//! [`Listing::of`] asks `objdump` for). From it, a function is read as:
//!
//! * its [straight line](Listing::straight_line): the path an allocation that fits
//!   takes, from the entry to the first `ret`;
//! * its [innermost loop](Listing::loop_body);
//! * [all of it](Listing::whole_function), slow path included.
//!
//! Each instruction comes back as one string with objdump's column padding collapsed to
//! single spaces (`mov rax,QWORD PTR [rdi]`), so that listings read well in Markdown and
//! tests can match on them. [`is_conditional_branch`], [`is_register_save`] and
//! [`callee`] say what an instruction is.
//!
//! ```
//! use bumpdown_disasm::{is_conditional_branch, Listing};
//!
//! let listing = Listing::from_text(
//!     "0000000000001010 <probe>:\n    \
//!      1010:\tmov    rax,QWORD PTR [rdi]\n    \
//!      1013:\tsub    rax,0x8\n    \
//!      1017:\tcmp    rax,QWORD PTR [rdi+0x8]\n    \
//!      101b:\tjb     1021 <probe+0x11>\n    \
//!      101d:\tmov    QWORD PTR [rdi],rax\n    \
//!      1020:\tret\n    \
//!      1021:\tjmp    2000 <slow>\n"
//!         .to_owned(),
//! );
//! let line = listing.straight_line("probe").unwrap();
//! assert_eq!(line.len(), 6);
//! assert_eq!(line[0], "mov rax,QWORD PTR [rdi]");
//! assert_eq!(line.iter().filter(|i| is_conditional_branch(i)).count(), 1);
//! ```

use std::path::Path;
use std::process::Command;

/// The disassembly of one binary or object file: `objdump -d --no-show-raw-insn -M
/// intel` output.
pub struct Listing {
    text: String,
}

/// One instruction of a function: its address and its text, padding collapsed.
struct Insn {
    address: u64,
    text: String,
}

impl Listing {
    /// Disassembles `file` with `objdump`. The error says why when `objdump` is missing
    /// or fails, for the caller to report (the tests skip, the bench prints it in place
    /// of the section).
    pub fn of(file: &Path) -> Result<Listing, String> {
        let output = Command::new("objdump")
            .args(["-d", "--no-show-raw-insn", "-M", "intel"])
            .arg(file)
            .output()
            .map_err(|e| format!("`objdump` could not be run ({e}); install binutils"))?;
        if !output.status.success() {
            return Err(format!("`objdump -d` failed: {}", String::from_utf8_lossy(&output.stderr).trim()));
        }
        let text = String::from_utf8(output.stdout).map_err(|_| "`objdump` printed non-UTF-8".to_owned())?;
        Ok(Listing { text })
    }

    /// A listing already in hand (objdump's output, as [`Listing::of`] reads it).
    pub fn from_text(text: String) -> Listing {
        Listing { text }
    }

    /// Every instruction of `symbol`, up to the blank line that ends it in the listing.
    fn function(&self, symbol: &str) -> Result<Vec<Insn>, String> {
        let header = format!("<{symbol}>:");
        let start = self.text.find(&header).ok_or_else(|| format!("`{symbol}` is not in the disassembly"))?;
        Ok(self.text[start..]
            .lines()
            .skip(1)
            .map_while(|line| {
                let (address, text) = line.split_once(":\t")?;
                let address = u64::from_str_radix(address.trim(), 16).ok()?;
                Some(Insn { address, text: text.split_whitespace().collect::<Vec<_>>().join(" ") })
            })
            .collect())
    }

    /// The instructions of `symbol` from its entry up to and including the first `ret`:
    /// the fall-through of every conditional jump, and the target of every unconditional
    /// `jmp` inside the function (where the compiler put a block of the path elsewhere,
    /// such as a shared epilogue; the instructions it jumps over are another path's). A
    /// `jmp` back to an instruction already on the line would close a loop, which an
    /// allocation that fits does not take: the line goes on below it; reaching an
    /// instruction a second time is an error.
    pub fn straight_line(&self, symbol: &str) -> Result<Vec<String>, String> {
        let body = self.function(symbol)?;
        let mut out = Vec::new();
        let mut on_line = vec![false; body.len()];
        let mut at = 0;
        while let Some(insn) = body.get(at) {
            if std::mem::replace(&mut on_line[at], true) {
                return Err(format!("`{symbol}`: its straight line comes round to `{}` again", insn.text));
            }
            out.push(insn.text.clone());
            if insn.text.starts_with("ret") {
                return Ok(out);
            }
            let jmp = insn.text.starts_with("jmp ").then(|| jump_target(&insn.text)).flatten();
            at = match jmp.and_then(|to| body.iter().position(|i| i.address == to)) {
                Some(target) if !on_line[target] => target,
                _ => at + 1,
            };
        }
        Err(format!("`{symbol}`: no `ret` before the next symbol"))
    }

    /// The instructions of the innermost loop of `symbol`, in address order: from the
    /// target of its shortest backward conditional branch up to that branch. (A slow
    /// path laid out after the loop may jump back into it too, over a longer span.)
    pub fn loop_body(&self, symbol: &str) -> Result<Vec<String>, String> {
        let body = self.function(symbol)?;
        let (target, branch) = body
            .iter()
            .filter(|i| is_conditional_branch(&i.text))
            .filter_map(|i| jump_target(&i.text).filter(|&to| to < i.address).map(|to| (to, i.address)))
            .min_by_key(|(to, from)| from - to)
            .ok_or_else(|| format!("`{symbol}`: no loop"))?;
        Ok(body.into_iter().filter(|i| (target..=branch).contains(&i.address)).map(|i| i.text).collect())
    }

    /// Every instruction of `symbol`, slow path included, without the padding after it
    /// (`int3`, `nop` and their kin).
    pub fn whole_function(&self, symbol: &str) -> Result<Vec<String>, String> {
        let padding = |i: &str| i == "int3" || ["nop", "data16", "xchg"].iter().any(|p| i.starts_with(p));
        Ok(self.function(symbol)?.into_iter().map(|i| i.text).filter(|i| !padding(i)).collect())
    }
}

/// The address a jump goes to, when its operand is one (`jb 1030 <probe+0x20>`); `None`
/// for an indirect jump.
fn jump_target(insn: &str) -> Option<u64> {
    let (_, operand) = insn.split_once(' ')?;
    u64::from_str_radix(operand.split(' ').next()?, 16).ok()
}

/// Whether `insn` is a conditional jump (`jb`, `ja`, `jne`, ...; not `jmp`).
pub fn is_conditional_branch(insn: &str) -> bool {
    insn.starts_with('j') && !insn.starts_with("jmp")
}

/// Callee-saved registers of the x86-64 System V ABI, 64- and 32-bit names.
const CALLEE_SAVED: [&str; 12] =
    ["rbx", "rbp", "r12", "r13", "r14", "r15", "ebx", "ebp", "r12d", "r13d", "r14d", "r15d"];

/// Whether `insn` only serves a call: it saves or restores a register (`push`, `pop`),
/// parks a register's value in a callee-saved one, or aligns the stack (`sub`/`add
/// rsp`). An allocation that fits needs none of these unless its path itself calls (a
/// `memcpy`); where a compiler puts them on the fast path anyway (gcc keeps the slow
/// call's in the prologue, where LLVM mostly moves them into the slow block), counting
/// them apart lets the bump itself compare across compilers. A load into a callee-saved
/// register is work, not a save.
pub fn is_register_save(insn: &str) -> bool {
    let (op, operands) = insn.split_once(' ').unwrap_or((insn, ""));
    let (dest, src) = operands.split_once(',').unwrap_or((operands, ""));
    let is_register =
        |r: &str| r.starts_with(|c: char| c.is_ascii_alphabetic()) && r.chars().all(|c| c.is_ascii_alphanumeric());
    match op {
        "push" | "pop" => true,
        "mov" => CALLEE_SAVED.contains(&dest) && is_register(src),
        "sub" | "add" => dest == "rsp",
        _ => false,
    }
}

/// The function a `call` instruction calls: objdump's `<name@version>` or
/// `<name+offset>` annotation without the suffix, else the operand. A call through a
/// slot of the global offset table (how an executable calls a function of another of
/// its crates) is annotated with the table's neighbourhood, not the function: it is
/// named `GOT` instead.
pub fn callee(insn: &str) -> String {
    match (insn.rfind('<'), insn.rfind('>')) {
        (Some(open), Some(close)) if open < close => {
            let name = &insn[open + 1..close];
            let name = name.split(['@', '+']).next().unwrap_or(name);
            if matches!(name, "_DYNAMIC" | "_GLOBAL_OFFSET_TABLE_") { "GOT" } else { name }.to_owned()
        }
        _ => insn.trim_start_matches("call").trim().to_owned(),
    }
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

0000000000001050 <probe_c>:
    1050:\tcmp    rdx,0x40
    1054:\tja     1060 <probe_c+0x10>
    1056:\tjmp    105d <probe_c+0xd>
    1058:\tret
    1059:\tcall   2000 <slow>
    105d:\tjmp    1058 <probe_c+0x8>
    105f:\tjmp    1050 <probe_c>

0000000000001070 <probe_d>:
    1070:\tjmp    1073 <probe_d+0x3>
    1072:\tnop
    1073:\tjmp    1072 <probe_d+0x2>

0000000000001080 <looping>:
    1080:\tmov    ecx,0x10
    1085:\tadd    rax,0x8
    1089:\tcmp    rax,rdx
    108c:\tja     10a0 <looping+0x20>
    108e:\tmov    QWORD PTR [rax-0x8],rsi
    1092:\tdec    ecx
    1094:\tjne    1085 <looping+0x5>
    1096:\tret
    1097:\tnop
    1098:\tcall   2000 <slow>
    109d:\tjmp    1085 <looping+0x5>
    10a0:\tcall   2000 <slow>
    10a5:\tjne    1080 <looping>
    10a7:\tint3
";

    fn listing() -> Listing {
        Listing::from_text(ASM.to_owned())
    }

    #[test]
    fn straight_lines_follow_jumps_to_the_first_ret() {
        let asm = listing();
        assert_eq!(
            asm.straight_line("probe_a").unwrap(),
            [
                "mov rax,QWORD PTR [rdi]",
                "sub rax,0x8",
                "cmp rax,QWORD PTR [rdi+0x8]",
                "jb 1030 <probe_a+0x20>",
                "mov QWORD PTR [rdi],rax",
                "ret"
            ]
        );
        assert!(asm.straight_line("probe_b").unwrap_err().contains("no `ret`"), "a tail call has no ret");
        // A jump inside the function is followed, past the block it skips and back to a
        // shared epilogue.
        assert_eq!(
            asm.straight_line("probe_c").unwrap(),
            ["cmp rdx,0x40", "ja 1060 <probe_c+0x10>", "jmp 105d <probe_c+0xd>", "jmp 1058 <probe_c+0x8>", "ret"]
        );
        // One that comes back to an instruction already on the line is a loop: no count.
        assert!(asm.straight_line("probe_d").unwrap_err().contains("comes round"));
        assert!(asm.straight_line("missing").unwrap_err().contains("not in the disassembly"));
        // The function ends at the blank line: `other`'s `ret` is not `probe_a`'s.
        assert_eq!(asm.straight_line("other").unwrap(), ["ret"]);
    }

    #[test]
    fn the_innermost_loop_is_the_shortest_backward_branch() {
        let asm = listing();
        assert_eq!(
            asm.loop_body("looping").unwrap(),
            [
                "add rax,0x8",
                "cmp rax,rdx",
                "ja 10a0 <looping+0x20>",
                "mov QWORD PTR [rax-0x8],rsi",
                "dec ecx",
                "jne 1085 <looping+0x5>"
            ]
        );
        assert!(asm.loop_body("probe_a").unwrap_err().contains("no loop"));
    }

    #[test]
    fn whole_functions_leave_out_the_padding() {
        let whole = listing().whole_function("looping").unwrap();
        assert_eq!(whole.len(), 12);
        assert!(!whole.iter().any(|i| i == "nop" || i == "int3"));
    }

    #[test]
    fn calls_are_named_by_their_callee() {
        assert_eq!(callee("call QWORD PTR [rip+0x6282e] # 2400f8 <memcpy@GLIBC_2.14>"), "memcpy");
        assert_eq!(callee("call 1234 <slow_path+0x10>"), "slow_path");
        assert_eq!(callee("call QWORD PTR [rip+0xed708] # 4ee088 <_DYNAMIC+0xcd0>"), "GOT");
        assert_eq!(callee("call rax"), "rax");
    }

    #[test]
    fn register_saves_are_told_from_work() {
        for save in ["push rbx", "pop rbp", "mov rbx,rsi", "mov ebx,esi", "mov r12d,edx", "sub rsp,0x8", "add rsp,0x8"]
        {
            assert!(is_register_save(save), "{save}");
        }
        for work in [
            "mov QWORD PTR [rax],rbx",
            "mov rax,QWORD PTR [rdi]",
            "mov rbx,QWORD PTR [rdi]",
            "mov ebx,0x1",
            "sub rax,0x8",
            "ret",
            "cmp rsp,rax",
        ] {
            assert!(!is_register_save(work), "{work}");
        }
        assert!(is_conditional_branch("jb 10"));
        assert!(!is_conditional_branch("jmp 10"));
    }

    /// `objdump` on a file that is not an object fails with its message, and a missing
    /// `objdump` fails too: either way an error, not a panic.
    #[test]
    #[cfg_attr(miri, ignore = "runs objdump")]
    fn objdump_failures_are_errors() {
        let err = Listing::of(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml").as_path()).err();
        assert!(err.is_some_and(|e| e.contains("objdump")));
    }
}
