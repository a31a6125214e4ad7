//! Real use: parse a program into a syntax tree, evaluate it, drop it.
//!
//! That is what arenas are most often for (compilers, interpreters, query
//! planners): many small nodes that point at each other and die together. The
//! source is generated from a fixed seed: about 8 MiB of statements such as
//! `x12 = (x3 + 41) * max(x7, -x1, 9) - x60 / 5;`. The same recursive-descent
//! parser builds the tree three ways:
//!
//! * in a `bumpdown::Arena`: children are `&'a Expr<'a>` (`alloc`), call
//!   arguments `alloc_slice_copy`, names `alloc_str`, the statement list
//!   `alloc_iter`;
//! * in a `bumpalo::Bump`, with its calls of the same names
//!   (`alloc_slice_fill_iter` for the statement list);
//! * on the heap: `Box` children, `Vec` arguments, `Box<str>` names, as
//!   ordinary Rust code would.
//!
//! Each run parses, evaluates (all variables start at their index; each statement
//! assigns one, with wrapping arithmetic) and drops the tree; the three ways take
//! turns, the median of the runs is reported. All three must agree on the result.

use std::fmt::Write;
use std::hint::black_box;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::charts::{chart, pale, x_grid, Chart, INK, MUTED, REFERENCE};
use crate::harness::{self, relative_spread};
use crate::heap;
use crate::progress::{Phase, Run};
use crate::section::{self, prose, Context, Figure, Figures};
use crate::svg::{ticks, Anchor};
use crate::table::{colour, grid};
use crate::text::{mib, thousands};

/// Bytes of source to generate.
pub const SOURCE_BYTES: usize = 8 << 20;
/// Variables `x0` .. `x63`.
const VARS: usize = 64;
/// Deepest nesting of an expression.
const MAX_DEPTH: u32 = 6;
/// Names of the functions a call may use.
const FUNCTIONS: [&str; 4] = ["max", "min", "sum", "abs"];

/// A binary operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Add,
    Sub,
    Mul,
    /// `/` (0 when dividing by 0)
    Div,
    /// `%` (0 when dividing by 0)
    Rem,
}

impl Op {
    fn apply(self, l: i64, r: i64) -> i64 {
        match self {
            Op::Add => l.wrapping_add(r),
            Op::Sub => l.wrapping_sub(r),
            Op::Mul => l.wrapping_mul(r),
            Op::Div => l.checked_div(r).unwrap_or(0),
            Op::Rem => l.checked_rem(r).unwrap_or(0),
        }
    }

    fn symbol(self) -> char {
        match self {
            Op::Add => '+',
            Op::Sub => '-',
            Op::Mul => '*',
            Op::Div => '/',
            Op::Rem => '%',
        }
    }
}

/// A node of the tree in an arena: everything it points at lives there too.
#[derive(Clone, Copy, Debug)]
pub enum Expr<'a> {
    /// A literal.
    Num(i64),
    /// A variable `x<index>`.
    Var(u32),
    /// `-e`
    Neg(&'a Expr<'a>),
    /// `l op r`
    Bin(Op, &'a Expr<'a>, &'a Expr<'a>),
    /// `name(args)`
    Call(&'a str, &'a [Expr<'a>]),
}

/// A node of the tree on the heap, variant for variant an [`Expr`].
#[derive(Debug)]
pub enum HeapExpr {
    Num(i64),
    Var(u32),
    Neg(Box<HeapExpr>),
    Bin(Op, Box<HeapExpr>, Box<HeapExpr>),
    Call(Box<str>, Vec<HeapExpr>),
}

/// What the parser needs from a place to put nodes.
trait Build {
    type Expr;
    type Program;
    fn num(&self, n: i64) -> Self::Expr;
    fn var(&self, index: u32) -> Self::Expr;
    fn neg(&self, e: Self::Expr) -> Self::Expr;
    fn bin(&self, op: Op, l: Self::Expr, r: Self::Expr) -> Self::Expr;
    /// A call whose arguments are `args[start..]`; removes them from `args`.
    fn call(&self, name: &str, args: &mut Vec<Self::Expr>, start: usize) -> Self::Expr;
    /// The statement list; empties `statements`.
    fn program(&self, statements: &mut Vec<(u32, Self::Expr)>) -> Self::Program;
}

/// A builder that puts the tree in an arena of type `$arena`: nodes by `alloc`, call
/// arguments by `alloc_slice_copy`, names by `alloc_str`, the statement list by `$program`.
macro_rules! arena_build {
    ($name:ident, $arena:ty, $program:ident) => {
        struct $name<'a>(&'a $arena);

        impl<'a> Build for $name<'a> {
            type Expr = Expr<'a>;
            type Program = &'a [(u32, Expr<'a>)];
            fn num(&self, n: i64) -> Expr<'a> {
                Expr::Num(n)
            }
            fn var(&self, index: u32) -> Expr<'a> {
                Expr::Var(index)
            }
            fn neg(&self, e: Expr<'a>) -> Expr<'a> {
                Expr::Neg(self.0.alloc(e))
            }
            fn bin(&self, op: Op, l: Expr<'a>, r: Expr<'a>) -> Expr<'a> {
                Expr::Bin(op, self.0.alloc(l), self.0.alloc(r))
            }
            fn call(&self, name: &str, args: &mut Vec<Expr<'a>>, start: usize) -> Expr<'a> {
                let call = Expr::Call(self.0.alloc_str(name), self.0.alloc_slice_copy(&args[start..]));
                args.truncate(start);
                call
            }
            fn program(&self, statements: &mut Vec<(u32, Expr<'a>)>) -> Self::Program {
                self.0.$program(statements.drain(..))
            }
        }
    };
}

arena_build!(InBumpdown, bumpdown::Arena, alloc_iter);
arena_build!(InBumpalo, bumpalo::Bump, alloc_slice_fill_iter);

struct OnHeap;

impl Build for OnHeap {
    type Expr = HeapExpr;
    type Program = Vec<(u32, HeapExpr)>;
    fn num(&self, n: i64) -> HeapExpr {
        HeapExpr::Num(n)
    }
    fn var(&self, index: u32) -> HeapExpr {
        HeapExpr::Var(index)
    }
    fn neg(&self, e: HeapExpr) -> HeapExpr {
        HeapExpr::Neg(Box::new(e))
    }
    fn bin(&self, op: Op, l: HeapExpr, r: HeapExpr) -> HeapExpr {
        HeapExpr::Bin(op, Box::new(l), Box::new(r))
    }
    fn call(&self, name: &str, args: &mut Vec<HeapExpr>, start: usize) -> HeapExpr {
        HeapExpr::Call(name.into(), args.drain(start..).collect())
    }
    fn program(&self, statements: &mut Vec<(u32, HeapExpr)>) -> Self::Program {
        std::mem::take(statements)
    }
}

/// A recursive-descent parser over the generated source (which is well-formed:
/// anything else panics with the position).
struct Parser<'s, B: Build> {
    src: &'s [u8],
    pos: usize,
    build: B,
    /// Arguments of the calls being parsed, innermost last.
    args: Vec<B::Expr>,
}

impl<'s, B: Build> Parser<'s, B> {
    fn parse(src: &'s str, build: B) -> B::Program {
        let mut parser = Parser { src: src.as_bytes(), pos: 0, build, args: Vec::new() };
        let mut statements = Vec::new();
        while parser.skip_space() {
            parser.expect(b'x');
            let target = parser.number() as u32;
            parser.expect(b'=');
            let value = parser.expr(0);
            parser.expect(b';');
            statements.push((target, value));
        }
        parser.build.program(&mut statements)
    }

    /// Skips blanks; false at the end of the source.
    fn skip_space(&mut self) -> bool {
        while self.pos < self.src.len() && self.src[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
        self.pos < self.src.len()
    }

    fn peek(&mut self) -> u8 {
        if self.skip_space() {
            self.src[self.pos]
        } else {
            0
        }
    }

    fn expect(&mut self, byte: u8) {
        let found = self.peek();
        assert_eq!(found, byte, "expected {:?} at byte {}, found {:?}", byte as char, self.pos, found as char);
        self.pos += 1;
    }

    fn number(&mut self) -> i64 {
        let start = self.pos;
        let mut n = 0i64;
        while self.pos < self.src.len() && self.src[self.pos].is_ascii_digit() {
            n = n * 10 + i64::from(self.src[self.pos] - b'0');
            self.pos += 1;
        }
        assert!(self.pos > start, "expected a number at byte {start}");
        n
    }

    /// Binary operators by precedence climbing: level 0 is `+ -`, level 1 `* / %`.
    fn expr(&mut self, level: u8) -> B::Expr {
        if level == 2 {
            return self.unary();
        }
        let mut left = self.expr(level + 1);
        loop {
            let op = match (level, self.peek()) {
                (0, b'+') => Op::Add,
                (0, b'-') => Op::Sub,
                (1, b'*') => Op::Mul,
                (1, b'/') => Op::Div,
                (1, b'%') => Op::Rem,
                _ => return left,
            };
            self.pos += 1;
            let right = self.expr(level + 1);
            left = self.build.bin(op, left, right);
        }
    }

    fn unary(&mut self) -> B::Expr {
        match self.peek() {
            b'-' => {
                self.pos += 1;
                let e = self.unary();
                self.build.neg(e)
            }
            b'(' => {
                self.pos += 1;
                let e = self.expr(0);
                self.expect(b')');
                e
            }
            b'x' => {
                self.pos += 1;
                let index = self.number() as u32;
                self.build.var(index)
            }
            b'0'..=b'9' => {
                let n = self.number();
                self.build.num(n)
            }
            b'a'..=b'z' => {
                let start = self.pos;
                while self.src[self.pos].is_ascii_lowercase() {
                    self.pos += 1;
                }
                // The source is ASCII, so any byte range of it is a `str`.
                let name = std::str::from_utf8(&self.src[start..self.pos]).expect("ASCII source");
                self.expect(b'(');
                let first = self.args.len();
                loop {
                    let arg = self.expr(0);
                    self.args.push(arg);
                    if self.peek() == b',' {
                        self.pos += 1;
                    } else {
                        break;
                    }
                }
                self.expect(b')');
                self.build.call(name, &mut self.args, first)
            }
            other => panic!("unexpected {:?} at byte {}", other as char, self.pos),
        }
    }
}

fn call(name: &str, mut args: impl Iterator<Item = i64>) -> i64 {
    match name {
        "max" => args.fold(i64::MIN, i64::max),
        "min" => args.fold(i64::MAX, i64::min),
        "sum" => args.fold(0, i64::wrapping_add),
        "abs" => args.next().unwrap_or(0).wrapping_abs(),
        _ => panic!("unknown function {name}"),
    }
}

fn eval(e: &Expr<'_>, env: &[i64; VARS]) -> i64 {
    match *e {
        Expr::Num(n) => n,
        Expr::Var(i) => env[i as usize],
        Expr::Neg(e) => eval(e, env).wrapping_neg(),
        Expr::Bin(op, l, r) => op.apply(eval(l, env), eval(r, env)),
        Expr::Call(name, args) => call(name, args.iter().map(|a| eval(a, env))),
    }
}

fn eval_heap(e: &HeapExpr, env: &[i64; VARS]) -> i64 {
    match e {
        HeapExpr::Num(n) => *n,
        HeapExpr::Var(i) => env[*i as usize],
        HeapExpr::Neg(e) => eval_heap(e, env).wrapping_neg(),
        HeapExpr::Bin(op, l, r) => op.apply(eval_heap(l, env), eval_heap(r, env)),
        HeapExpr::Call(name, args) => call(name, args.iter().map(|a| eval_heap(a, env))),
    }
}

/// Runs the statements in order; returns the wrapping sum of the variables.
fn run<E>(program: &[(u32, E)], eval: impl Fn(&E, &[i64; VARS]) -> i64) -> i64 {
    let mut env: [i64; VARS] = std::array::from_fn(|i| i as i64);
    for (target, value) in program {
        env[*target as usize] = eval(value, &env);
    }
    env.iter().fold(0, |a, b| a.wrapping_add(*b))
}

/// The generated source and what is in it.
pub struct Source {
    /// The program text (ASCII).
    pub text: String,
    /// Statements in it.
    pub statements: usize,
    /// Tree nodes the parser builds (numbers, variables, operators, calls).
    pub nodes: usize,
}

/// A small xorshift generator: the same program on every machine.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// Generates about `bytes` of source from a fixed seed.
pub fn generate(bytes: usize) -> Source {
    let mut source = Source { text: String::with_capacity(bytes + 256), statements: 0, nodes: 0 };
    let mut rng = Rng(0x0bad_5eed_2026_0004);
    while source.text.len() < bytes {
        let target = rng.below(VARS as u64);
        source.text.push_str(&format!("x{target} = "));
        gen_expr(&mut source, &mut rng, 0);
        source.text.push_str(";\n");
        source.statements += 1;
    }
    source
}

fn gen_expr(source: &mut Source, rng: &mut Rng, depth: u32) {
    source.nodes += 1;
    let choice = if depth >= MAX_DEPTH { rng.below(2) } else { rng.below(10) };
    match choice {
        0 => source.text.push_str(&rng.below(1000).to_string()),
        1 => source.text.push_str(&format!("x{}", rng.below(VARS as u64))),
        2 => {
            source.text.push('-');
            gen_expr(source, rng, depth + 1);
        }
        3 => {
            let name = FUNCTIONS[rng.below(FUNCTIONS.len() as u64) as usize];
            source.text.push_str(name);
            source.text.push('(');
            for i in 0..=rng.below(4) {
                if i > 0 {
                    source.text.push_str(", ");
                }
                gen_expr(source, rng, depth + 1);
            }
            source.text.push(')');
        }
        _ => {
            let op = [Op::Add, Op::Sub, Op::Mul, Op::Div, Op::Rem, Op::Add, Op::Mul][rng.below(7) as usize];
            // Parenthesised so the tree is the one generated, whatever the precedence.
            source.text.push('(');
            gen_expr(source, rng, depth + 1);
            source.text.push(' ');
            source.text.push(op.symbol());
            source.text.push(' ');
            gen_expr(source, rng, depth + 1);
            source.text.push(')');
        }
    }
}

/// One way of holding the tree: its medians over the runs.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct WayResult {
    /// How the tree was held.
    pub name: String,
    /// Median ms to parse (allocation included).
    pub parse_ms: f64,
    /// Median ms to evaluate.
    pub eval_ms: f64,
    /// Median ms to drop the tree (the arena, or every box).
    pub drop_ms: f64,
    /// Bytes the tree held from the global allocator once parsed (for arenas,
    /// their chunks).
    pub heap_bytes: usize,
    /// Heap blocks the tree held (for arenas, their chunks).
    pub heap_blocks: usize,
    /// For arenas, `allocated_bytes()` (chunk capacity without headers).
    pub arena_bytes: Option<usize>,
    /// The program's result, the same for every way.
    pub checksum: i64,
    /// The relative spread (`max / min - 1`) over the runs of parse, evaluate and drop.
    pub spread: [f64; 3],
}

/// The section's figures.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RealUse {
    /// Source size, bytes.
    pub source_bytes: usize,
    /// Statements in the source.
    pub statements: usize,
    /// Nodes in the tree.
    pub nodes: usize,
    /// Runs per way.
    pub runs: usize,
    /// One per way, in table order.
    pub ways: Vec<WayResult>,
}

/// The ways to hold the tree, in table order.
pub const WAYS: [&str; 3] = ["bumpdown::Arena", "bumpalo::Bump", "Box / Vec"];

/// One run's figures.
struct RunFigures {
    parse_ms: f64,
    eval_ms: f64,
    drop_ms: f64,
    heap_bytes: usize,
    heap_blocks: usize,
    arena_bytes: Option<usize>,
    checksum: i64,
}

fn ms_since(start: Instant) -> f64 {
    start.elapsed().as_secs_f64() * 1e3
}

/// Parses, evaluates and drops once, the way `way` (an index into [`WAYS`]).
// One of the tree and its holder is nothing to drop: an arena's tree is a reference, the
// heap's holder is `()`.
#[allow(dropping_references, dropping_copy_types)]
fn run_once(way: usize, src: &str) -> RunFigures {
    let before = heap::Snapshot::now();
    let held = |arena_bytes: Option<usize>| {
        let now = heap::Snapshot::now();
        (
            now.live_bytes.saturating_sub(before.live_bytes),
            now.live_blocks.saturating_sub(before.live_blocks),
            arena_bytes,
        )
    };
    // Parse into a new holder (an arena, or nothing for the heap) with builder `$build`,
    // evaluate, drop the tree and its holder.
    macro_rules! way {
        ($new:expr, $build:expr, $eval:expr, $arena_bytes:expr) => {{
            let start = Instant::now();
            let arena = $new;
            let program = Parser::parse(black_box(src), $build(&arena));
            let parse_ms = ms_since(start);
            let (heap_bytes, heap_blocks, arena_bytes) = held($arena_bytes(&arena));
            let start = Instant::now();
            let checksum = black_box(run(&program, $eval));
            let eval_ms = ms_since(start);
            let start = Instant::now();
            drop(program);
            drop(arena);
            let drop_ms = ms_since(start);
            RunFigures { parse_ms, eval_ms, drop_ms, heap_bytes, heap_blocks, arena_bytes, checksum }
        }};
    }
    match way {
        0 => way!(bumpdown::Arena::new(), InBumpdown, eval, |a: &bumpdown::Arena| Some(a.allocated_bytes())),
        1 => way!(bumpalo::Bump::new(), InBumpalo, eval, |a: &bumpalo::Bump| Some(a.allocated_bytes())),
        _ => way!((), |_| OnHeap, eval_heap, |_| None),
    }
}

/// Generates the source and runs every way `runs` times, interleaved, after one
/// warm-up round.
pub fn measure(runs: usize, run: &Run) -> Result<RealUse, String> {
    run.section(Phase::RealUse, 2 + runs);
    run.step("generating the source");
    let source = generate(SOURCE_BYTES);
    let mut figures: Vec<Vec<RunFigures>> = WAYS.iter().map(|_| Vec::new()).collect();
    for round in 0..=runs {
        run.step(if round == 0 { "warm-up" } else { "parse, evaluate, drop" });
        for offset in 0..WAYS.len() {
            let way = (round + offset) % WAYS.len();
            let run = run_once(way, &source.text);
            if round > 0 {
                figures[way].push(run);
            }
        }
    }
    let ways: Vec<WayResult> = WAYS
        .iter()
        .zip(figures)
        .map(|(name, runs)| {
            let median = |f: fn(&RunFigures) -> f64| harness::median(&mut runs.iter().map(f).collect::<Vec<_>>());
            let spread = |f: fn(&RunFigures) -> f64| relative_spread(&runs.iter().map(f).collect::<Vec<_>>());
            let last = runs.last().expect("at least one run");
            WayResult {
                name: name.to_string(),
                parse_ms: median(|r| r.parse_ms),
                eval_ms: median(|r| r.eval_ms),
                drop_ms: median(|r| r.drop_ms),
                heap_bytes: last.heap_bytes,
                heap_blocks: last.heap_blocks,
                arena_bytes: last.arena_bytes,
                checksum: last.checksum,
                spread: [spread(|r| r.parse_ms), spread(|r| r.eval_ms), spread(|r| r.drop_ms)],
            }
        })
        .collect();
    if let Some(odd) = ways.iter().find(|w| w.checksum != ways[0].checksum) {
        return Err(format!(
            "real use: {} computed {} but {} computed {}",
            odd.name, odd.checksum, ways[0].name, ways[0].checksum
        ));
    }
    Ok(RealUse { source_bytes: source.text.len(), statements: source.statements, nodes: source.nodes, runs, ways })
}

impl section::Section for RealUse {
    fn markdown(&self, md: &mut String, cx: &Context) {
        md.push_str(&prose(
            "real_use",
            &[
                ("mib", &(self.source_bytes >> 20)),
                ("statements", &thousands(self.statements)),
                ("nodes", &thousands(self.nodes)),
                ("runs", &self.runs),
            ],
        ));
        let fastest = self.ways.iter().map(|w| w.parse_ms + w.eval_ms + w.drop_ms).fold(f64::INFINITY, f64::min);
        let columns = ["parse ms", "evaluate ms", "drop ms", "total", "held (MiB)", "heap blocks"];
        let lines = self.ways.iter().map(|w| {
            let total = w.parse_ms + w.eval_ms + w.drop_ms;
            let ratio = total / fastest;
            let cells = [
                format!("{:.1}", w.parse_ms),
                format!("{:.1}", w.eval_ms),
                format!("{:.2}", w.drop_ms),
                format!("{} {ratio:.2}x ({total:.1} ms)", colour(ratio)),
                mib(w.heap_bytes),
                thousands(w.heap_blocks),
            ];
            (w.name.clone(), cells.into_iter().map(Some).chain([w.arena_bytes.map(mib)]).collect())
        });
        grid(md, "tree in", &columns.into_iter().chain(["`allocated_bytes()` (MiB)"]).collect::<Vec<_>>(), lines);
        md.push_str(&prose("real_use_source", &[("bytes", &thousands(SOURCE_BYTES))]));
        let _ = writeln!(md, "![real use: parse, evaluate and drop ms per way]({}real-use.svg)\n", cx.images);
    }

    /// One stacked bar per way: parse, evaluate and drop.
    fn charts(&self, charts: &mut Vec<Chart>) {
        if self.ways.is_empty() {
            return;
        }
        let (label_width, plot_w, bar, gap, top) = (150.0, 560.0, 22.0, 14.0, 84.0);
        let group = bar + gap;
        let bottom = top + group * self.ways.len() as f64;
        let (width, height) = (label_width + plot_w + 200.0, bottom + 50.0);
        let total = |w: &WayResult| w.parse_ms + w.eval_ms + w.drop_ms;
        let largest = self.ways.iter().map(total).fold(0.0, f64::max);
        let axis = ticks(largest, 6);
        let max = *axis.last().unwrap_or(&1.0);
        let x_of = |ms: f64| label_width + plot_w * ms / max;

        let how = format!(
            "median ms of {} runs, {} nodes; each bar is parse (solid), evaluate (pale) and drop (palest); shorter is better",
            self.runs,
            thousands(self.nodes)
        );
        let grey = REFERENCE;
        let phases = [("parse", grey.to_owned()), ("evaluate", pale(grey)), ("drop", pale(&pale(grey)))];
        let entries: Vec<(&str, &str)> = phases.iter().map(|(name, colour)| (*name, colour.as_str())).collect();
        let mut svg = chart(width, height, "Real use: parse, evaluate, drop a syntax tree", &how, &entries);
        x_grid(&mut svg, &axis, x_of, (top, bottom), |tick| format!("{tick}"));
        svg.text((label_width + plot_w / 2.0, bottom + 36.0), 11.0, Anchor::Middle, MUTED, "ms per run");
        for (i, w) in self.ways.iter().enumerate() {
            let y = top + group * i as f64 + gap / 2.0;
            svg.text((label_width - 10.0, y + bar / 2.0 + 4.0), 12.0, Anchor::End, INK, &w.name);
            let colour = crate::scopes::way_colour(&w.name);
            let shades = [colour.to_owned(), pale(colour), pale(&pale(colour))];
            let mut start = 0.0;
            for ((phase, ms), shade) in
                [("parse", w.parse_ms), ("evaluate", w.eval_ms), ("drop", w.drop_ms)].into_iter().zip(&shades)
            {
                let tip = format!("{}, {phase}: {ms:.2} ms", w.name);
                svg.rect_titled(x_of(start), y, x_of(start + ms) - x_of(start), bar, shade, &tip);
                start += ms;
            }
            let text = format!("{:.1} ms ({:.1} + {:.1} + {:.2})", total(w), w.parse_ms, w.eval_ms, w.drop_ms);
            svg.text((x_of(start) + 6.0, y + bar / 2.0 + 4.0), 11.0, Anchor::Start, INK, &text);
        }
        let title = "Real use: parse, evaluate and drop a syntax tree".to_owned();
        charts.push(Chart { file: "real-use.svg", title, svg: svg.finish() });
    }

    fn figures(&self, figures: &mut Figures) {
        for w in &self.ways {
            for (phase, median, spread) in [("parse", w.parse_ms, 0), ("eval", w.eval_ms, 1), ("drop", w.drop_ms, 2)] {
                figures
                    .push((format!("real_use: {}, {phase} ms", w.name), Figure { median, spread: w.spread[spread] }));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_way_builds_the_same_program() {
        let source = generate(20_000);
        assert!(source.text.len() >= 20_000 && source.statements > 10);
        let arena = bumpdown::Arena::new();
        let a = run(Parser::parse(&source.text, InBumpdown(&arena)), eval);
        let bump = bumpalo::Bump::new();
        let b = run(Parser::parse(&source.text, InBumpalo(&bump)), eval);
        let c = run(&Parser::parse(&source.text, OnHeap), eval_heap);
        assert_eq!(a, b);
        assert_eq!(a, c);
    }

    #[test]
    fn parses_and_evaluates_by_precedence() {
        // x0..x3 start as 0..3.
        let arena = bumpdown::Arena::new();
        let src = "x0 = 1 + 2 * 3 - -x2; x1 = max(x3, 10 / 0, min(4, 5)) % 3; x2 = abs(0 - 7);";
        let program = Parser::parse(src, InBumpdown(&arena));
        assert_eq!(program.len(), 3);
        // x0 = 9, x1 = 4 % 3 = 1, x2 = 7, x3..x63 = 3..63.
        let expected = 9 + 1 + 7 + (3..64).sum::<i64>();
        assert_eq!(run(program, eval), expected);
        assert_eq!(run(&Parser::parse(src, OnHeap), eval_heap), expected);
    }

    #[test]
    fn the_source_is_the_same_every_time() {
        let (a, b) = (generate(5_000), generate(5_000));
        assert_eq!(a.text, b.text);
        assert_eq!(a.nodes, b.nodes);
    }
}
