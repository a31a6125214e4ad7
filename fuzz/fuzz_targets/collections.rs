//! The arena collections (`Vec`, `String`, `Box`, `vec!`, `format!`, `collect_in`) as
//! operation programs checked against `std` mirrors after every step, on an `Arena`, in
//! its scope guards and in closure scopes. After every step: each live collection holds
//! what its mirror holds, no two buffers overlap, every element made is alive exactly
//! while a mirror holds it (elements count their drops), `check_invariants` holds and the
//! arena's held bytes equal the backing allocator's count. Backing requests fail when the
//! program asks; a failed `try_` method must leave its collection unchanged.
#![no_main]

#[path = "common/model.rs"]
mod model;

use std::cell::{Cell, RefCell};
use std::collections::HashSet;
use std::fmt::Write as _;

use arbitrary::{Arbitrary, Unstructured};
use bumpdown::collections::{ArenaAllocator, Box, CollectIn, String, Vec};
use bumpdown::{Arena, Scope, ScopeGuard};
use libfuzzer_sys::fuzz_target;
use model::Counting;

thread_local! {
    /// The ids of the elements alive now.
    static LIVE: RefCell<HashSet<u64>> = RefCell::new(HashSet::new());
    /// The next element id.
    static NEXT_ID: Cell<u64> = const { Cell::new(0) };
}

/// An element that records its birth and its drop: dropping one twice, or one that was
/// never made, panics; one never dropped stays in `LIVE`.
struct D {
    id: u64,
    /// What the mirrors hold.
    tag: u32,
}

impl D {
    fn new(tag: u32) -> D {
        let id = NEXT_ID.with(|n| n.replace(n.get() + 1));
        LIVE.with(|l| assert!(l.borrow_mut().insert(id), "element id reused"));
        D { id, tag }
    }
}

impl Clone for D {
    fn clone(&self) -> D {
        D::new(self.tag)
    }
}

impl Drop for D {
    fn drop(&mut self) {
        let id = self.id;
        LIVE.with(|l| assert!(l.borrow_mut().remove(&id), "element {id} dropped twice"));
    }
}

fn live_elements() -> usize {
    LIVE.with(|l| l.borrow().len())
}

/// The characters strings are made of: one to four bytes each.
const CHARS: [char; 4] = ['a', 'é', '€', '🦀'];

fn ch(c: u8) -> char {
    CHARS[usize::from(c) % CHARS.len()]
}

fn text(len: u8, wide: bool) -> std::string::String {
    (0..len).map(|i| if wide { ch(i) } else { 'x' }).collect()
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum Op {
    /// `how`: `new_in`, `with_capacity_in`, `try_with_capacity_in`, `vec!` of one
    /// element repeated, `vec!` of a list, `collect_in`.
    NewVec {
        cap: u8,
        how: u8,
    },
    /// `how`: `new_in`, `with_capacity_in`, `from_str_in`, `format!`, `collect_in`.
    NewString {
        len: u8,
        how: u8,
    },
    NewBox {
        tag: u16,
        fallible: bool,
    },
    Drop {
        pick: u8,
    },
    /// Vec: push `n` elements; String: push a char; Box: replace the value.
    Push {
        pick: u8,
        n: u8,
    },
    /// Vec and String: pop; Box: `into_inner`.
    Pop {
        pick: u8,
    },
    Insert {
        pick: u8,
        at: u8,
        c: u8,
    },
    Remove {
        pick: u8,
        at: u8,
        swap: bool,
    },
    /// `how`: `Extend` from an iterator, `extend_from_slice` (clones), `resize`,
    /// `push_str`/`insert_str` for strings.
    Extend {
        pick: u8,
        n: u8,
        how: u8,
    },
    Truncate {
        pick: u8,
        len: u8,
    },
    Clear {
        pick: u8,
    },
    /// `how`: `reserve`, `reserve_exact`, `try_reserve`, `try_reserve_exact`; `huge`
    /// asks the `try_` ones for more than any allocator gives.
    Reserve {
        pick: u8,
        add: u16,
        how: u8,
        huge: bool,
    },
    Shrink {
        pick: u8,
    },
    SplitOff {
        pick: u8,
        at: u8,
    },
    Append {
        pick: u8,
        other: u8,
    },
    Drain {
        pick: u8,
        a: u8,
        b: u8,
    },
    Retain {
        pick: u8,
        modulo: u8,
    },
    /// Takes `take` items of a vector's by-value iterator and drops the rest with it.
    IntoIter {
        pick: u8,
        take: u8,
    },
    Clone {
        pick: u8,
    },
    FailNext {
        n: u8,
    },
    EnterGuard,
    EnterScope,
    Leave,
    Reset,
}

/// A live collection.
enum Coll<'a> {
    V(Vec<'a, D>),
    S(String<'a>),
    B(Box<'a, D>),
}

/// What a live collection must hold.
enum Mirror {
    V(std::vec::Vec<u32>),
    S(std::string::String),
    B(u32),
}

/// Why a level of the program ended.
enum Exit {
    End,
    Leave,
    Guard,
    Scope,
    Reset,
}

/// What one level may do besides collection operations.
struct Level {
    depth: usize,
    can_reset: bool,
}

const MAX_LIVE: usize = 16;
const MAX_DEPTH: usize = 4;

fn pick(n: usize, at: u8) -> Option<usize> {
    (n > 0).then(|| usize::from(at) % n)
}

/// Runs `f` with the backing allocator's failures held back: for the methods that panic
/// when the allocator fails.
fn infallible<R>(backing: &Counting, f: impl FnOnce() -> R) -> R {
    let saved = backing.fail_next.replace(0);
    let r = f();
    backing.fail_next.set(saved);
    r
}

/// Checks every collection against its mirror, that no two buffers overlap and that the
/// live elements are exactly the mirrored ones.
fn check(slots: &[(Coll<'_>, Mirror)]) {
    let mut spans = std::vec::Vec::new();
    let mut elements = 0;
    for (coll, mirror) in slots {
        match (coll, mirror) {
            (Coll::V(v), Mirror::V(m)) => {
                assert!(v.iter().map(|d| d.tag).eq(m.iter().copied()), "vector differs from its mirror");
                assert!(v.len() <= v.capacity());
                spans.push((v.as_ptr() as usize, v.capacity() * size_of::<D>()));
                elements += m.len();
            }
            (Coll::S(s), Mirror::S(m)) => {
                assert_eq!(s.as_str(), m.as_str(), "string differs from its mirror");
                assert!(s.len() <= s.capacity());
                spans.push((s.as_ptr() as usize, s.capacity()));
            }
            (Coll::B(b), Mirror::B(m)) => {
                assert_eq!(b.tag, *m, "box differs from its mirror");
                spans.push((&**b as *const D as usize, size_of::<D>()));
                elements += 1;
            }
            _ => unreachable!("a collection paired with another kind's mirror"),
        }
    }
    assert_eq!(live_elements(), elements, "an element was dropped early, twice or never");
    spans.retain(|s| s.1 > 0);
    spans.sort_unstable();
    for w in spans.windows(2) {
        assert!(w[0].0 + w[0].1 <= w[1].0, "buffers overlap: {:x?} and {:x?}", w[0], w[1]);
    }
}

/// The char boundary at or below `i` in `s`.
fn floor_boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Runs collection operations on `al` until an operation this level must hand to its
/// caller (a scope to enter, the level's end, a reset); the level's collections are
/// dropped on the way out. `check_arena` checks the arena behind `al`.
fn steps<Al: ArenaAllocator>(
    al: &Al,
    ops: &mut std::slice::Iter<'_, Op>,
    backing: &Counting,
    level: &Level,
    check_arena: &dyn Fn(),
) -> Exit {
    let mut slots: std::vec::Vec<(Coll<'_>, Mirror)> = std::vec::Vec::new();
    let exit = loop {
        let Some(&op) = ops.next() else { break Exit::End };
        match op {
            Op::EnterGuard if level.depth < MAX_DEPTH => break Exit::Guard,
            Op::EnterScope if level.depth < MAX_DEPTH => break Exit::Scope,
            Op::Leave if level.depth > 0 => break Exit::Leave,
            Op::Reset if level.can_reset => break Exit::Reset,
            Op::FailNext { n } => backing.fail_next.set(u32::from(n % 4)),
            Op::NewVec { .. } | Op::NewString { .. } | Op::NewBox { .. } if slots.len() >= MAX_LIVE => {}
            Op::NewVec { cap, how } => new_vec(al, backing, &mut slots, cap, how),
            Op::NewString { len, how } => infallible(backing, || {
                let src = text(len, how & 8 != 0);
                let s = match how % 5 {
                    0 => String::new_in(al),
                    1 => String::with_capacity_in(usize::from(len), al),
                    2 => String::from_str_in(&src, al),
                    3 => bumpdown::format!(in al, "{src}{}", len),
                    _ => src.chars().collect_in(al),
                };
                let m = match how % 5 {
                    0 | 1 => std::string::String::new(),
                    3 => format!("{src}{len}"),
                    _ => src,
                };
                if how % 5 == 1 {
                    assert!(s.capacity() >= usize::from(len));
                }
                slots.push((Coll::S(s), Mirror::S(m)));
            }),
            Op::NewBox { tag, fallible } => {
                let tag = u32::from(tag);
                if fallible {
                    let before = live_elements();
                    if let Ok(b) = Box::try_new_in(D::new(tag), al) {
                        slots.push((Coll::B(b), Mirror::B(tag)));
                    } else {
                        assert_eq!(live_elements(), before, "a failed try_new_in kept its value");
                    }
                } else {
                    let b = infallible(backing, || Box::new_in(D::new(tag), al));
                    slots.push((Coll::B(b), Mirror::B(tag)));
                }
            }
            Op::Drop { pick: at } => {
                if let Some(i) = pick(slots.len(), at) {
                    slots.remove(i);
                }
            }
            Op::Append { pick: at, other } => {
                let (Some(i), Some(j)) = (pick(slots.len(), at), pick(slots.len(), other)) else { continue };
                if i == j {
                    continue;
                }
                let (lo, hi) = slots.split_at_mut(i.max(j));
                let (a, b) = if i < j { (&mut lo[i], &mut hi[0]) } else { (&mut hi[0], &mut lo[j]) };
                if let ((Coll::V(v), Mirror::V(m)), (Coll::V(w), Mirror::V(n))) = (a, b) {
                    infallible(backing, || v.append(w));
                    m.append(n);
                    assert!(w.is_empty());
                }
            }
            Op::SplitOff { pick: at, at: split } => {
                if slots.len() >= MAX_LIVE {
                    continue;
                }
                let Some(i) = pick(slots.len(), at) else { continue };
                let new = match &mut slots[i] {
                    (Coll::V(v), Mirror::V(m)) => {
                        let k = usize::from(split) % (m.len() + 1);
                        let tail = infallible(backing, || v.split_off(k));
                        Some((Coll::V(tail), Mirror::V(m.split_off(k))))
                    }
                    _ => None,
                };
                slots.extend(new);
            }
            Op::Clone { pick: at } => {
                if slots.len() >= MAX_LIVE {
                    continue;
                }
                let Some(i) = pick(slots.len(), at) else { continue };
                let new = match &slots[i] {
                    (Coll::V(v), Mirror::V(m)) => {
                        Some((Coll::V(infallible(backing, || v.clone())), Mirror::V(m.clone())))
                    }
                    _ => None,
                };
                slots.extend(new);
            }
            _ => {
                let Some(i) = op_pick(op).and_then(|at| pick(slots.len(), at)) else { continue };
                let (coll, mirror) = &mut slots[i];
                match (coll, mirror) {
                    (Coll::V(v), Mirror::V(m)) => vec_op(al, v, m, op, backing),
                    (Coll::S(s), Mirror::S(m)) => string_op(s, m, op, backing),
                    (Coll::B(_), Mirror::B(_)) => {
                        if let Op::Pop { .. } = op {
                            let (Coll::B(b), Mirror::B(m)) = slots.remove(i) else { unreachable!() };
                            assert_eq!(b.into_inner().tag, m);
                        } else if let Op::Push { n, .. } = op {
                            let (Coll::B(b), Mirror::B(m)) = &mut slots[i] else { unreachable!() };
                            **b = D::new(u32::from(n));
                            *m = u32::from(n);
                        }
                    }
                    _ => unreachable!(),
                }
            }
        }
        check(&slots);
        check_arena();
    };
    // The rest go in an order the program chose: back to front, or front to back.
    if slots.len().is_multiple_of(2) {
        while slots.pop().is_some() {}
    }
    drop(slots);
    assert_eq!(live_elements(), 0, "elements outlived their collections");
    check_arena();
    exit
}

/// The collection an operation works on.
fn op_pick(op: Op) -> Option<u8> {
    match op {
        Op::Push { pick, .. }
        | Op::Pop { pick }
        | Op::Insert { pick, .. }
        | Op::Remove { pick, .. }
        | Op::Extend { pick, .. }
        | Op::Truncate { pick, .. }
        | Op::Clear { pick }
        | Op::Reserve { pick, .. }
        | Op::Shrink { pick }
        | Op::Drain { pick, .. }
        | Op::Retain { pick, .. }
        | Op::IntoIter { pick, .. } => Some(pick),
        _ => None,
    }
}

fn new_vec<'a, Al: ArenaAllocator>(
    al: &'a Al,
    backing: &Counting,
    slots: &mut std::vec::Vec<(Coll<'a>, Mirror)>,
    cap: u8,
    how: u8,
) {
    let cap = usize::from(cap);
    let tag = u32::from(how);
    let (v, m) = match how % 6 {
        2 => {
            let Ok(v) = Vec::try_with_capacity_in(cap, al) else { return };
            assert!(v.capacity() >= cap);
            (v, vec![])
        }
        how => infallible(backing, || match how {
            0 => (Vec::new_in(al), vec![]),
            1 => {
                let v = Vec::with_capacity_in(cap, al);
                assert!(v.capacity() >= cap);
                (v, vec![])
            }
            3 => (bumpdown::vec![in al; D::new(tag); cap % 32], vec![tag; cap % 32]),
            4 => (bumpdown::vec![in al; D::new(1), D::new(2), D::new(tag)], vec![1, 2, tag]),
            _ => ((0..cap as u32).map(D::new).collect_in(al), (0..cap as u32).collect()),
        }),
    };
    slots.push((Coll::V(v), Mirror::V(m)));
}

/// Asserts a vector is exactly as it was: same buffer, length and capacity.
fn same_vec(v: &Vec<'_, D>, before: (usize, usize, usize)) {
    assert_eq!((v.as_ptr() as usize, v.len(), v.capacity()), before, "a failed try_ method changed the vector");
}

fn vec_op<'a, Al: ArenaAllocator>(
    al: &'a Al,
    v: &mut Vec<'a, D>,
    m: &mut std::vec::Vec<u32>,
    op: Op,
    backing: &Counting,
) {
    match op {
        Op::Push { n, .. } => infallible(backing, || {
            for k in 0..u32::from(n % 64) + 1 {
                v.push(D::new(k));
                m.push(k);
            }
        }),
        Op::Pop { .. } => assert_eq!(v.pop().map(|d| d.tag), m.pop()),
        Op::Insert { at, c, .. } => {
            let k = usize::from(at) % (m.len() + 1);
            infallible(backing, || v.insert(k, D::new(u32::from(c))));
            m.insert(k, u32::from(c));
        }
        Op::Remove { at, swap, .. } => {
            if m.is_empty() {
                return;
            }
            let k = usize::from(at) % m.len();
            let (got, want) = if swap { (v.swap_remove(k), m.swap_remove(k)) } else { (v.remove(k), m.remove(k)) };
            assert_eq!(got.tag, want);
        }
        Op::Extend { n, how, .. } => infallible(backing, || {
            let n = u32::from(n);
            match how % 3 {
                0 => {
                    v.extend((0..n).map(|k| D::new(k + 7)));
                    m.extend((0..n).map(|k| k + 7));
                }
                1 => {
                    let src: std::vec::Vec<D> = (0..n).map(D::new).collect();
                    v.extend_from_slice(&src);
                    m.extend(0..n);
                }
                _ => {
                    let len = n as usize;
                    v.resize(len, D::new(99));
                    m.resize(len, 99);
                }
            }
        }),
        Op::Truncate { len, .. } => {
            v.truncate(usize::from(len));
            m.truncate(usize::from(len));
        }
        Op::Clear { .. } => {
            v.clear();
            m.clear();
        }
        Op::Reserve { add, how, huge, .. } => {
            let add = if huge && how % 4 >= 2 { usize::MAX / 4 + usize::from(add) } else { usize::from(add) };
            let before = (v.as_ptr() as usize, v.len(), v.capacity());
            match how % 4 {
                0 => infallible(backing, || v.reserve(add)),
                1 => infallible(backing, || v.reserve_exact(add)),
                2 => {
                    if v.try_reserve(add).is_err() {
                        return same_vec(v, before);
                    }
                }
                _ => {
                    if v.try_reserve_exact(add).is_err() {
                        return same_vec(v, before);
                    }
                }
            }
            assert!(v.capacity() >= v.len() + add, "reserve gave too little");
            if how % 2 == 1 && before.2 < before.1 + add {
                assert_eq!(v.capacity(), v.len() + add, "reserve_exact gave more than asked");
            }
        }
        Op::Shrink { .. } => {
            infallible(backing, || v.shrink_to_fit());
            // Every arena here shrinks in place, which cannot fail.
            assert_eq!(v.capacity(), v.len(), "shrink_to_fit kept spare room");
        }
        Op::Drain { a, b, .. } => {
            let (a, b) = (usize::from(a) % (m.len() + 1), usize::from(b) % (m.len() + 1));
            let (lo, hi) = (a.min(b), a.max(b));
            if a & 1 == 0 {
                let got: std::vec::Vec<u32> = v.drain(lo..hi).map(|d| d.tag).collect();
                let want: std::vec::Vec<u32> = m.drain(lo..hi).collect();
                assert_eq!(got, want, "drain yielded other elements");
            } else {
                // A drain dropped after one item drops the rest of its range.
                let mut d = v.drain(lo..hi);
                let first = d.next().map(|d| d.tag);
                drop(d);
                let want: std::vec::Vec<u32> = m.drain(lo..hi).collect();
                assert_eq!(first, want.first().copied());
            }
        }
        Op::Retain { modulo, .. } => {
            let k = u32::from(modulo % 4) + 2;
            v.retain(|d| d.tag % k != 0);
            m.retain(|t| t % k != 0);
        }
        Op::IntoIter { take, .. } => {
            let all = std::mem::replace(v, Vec::new_in(al));
            let mut it = all.into_iter();
            let got: std::vec::Vec<u32> = it.by_ref().take(usize::from(take)).map(|d| d.tag).collect();
            drop(it);
            let want: std::vec::Vec<u32> = m.drain(..).take(usize::from(take)).collect();
            assert_eq!(got, want, "into_iter yielded other elements");
        }
        _ => {}
    }
}

fn string_op(s: &mut String<'_>, m: &mut std::string::String, op: Op, backing: &Counting) {
    match op {
        Op::Push { n, .. } => infallible(backing, || {
            s.push(ch(n));
            m.push(ch(n));
        }),
        Op::Pop { .. } => assert_eq!(s.pop(), m.pop()),
        Op::Insert { at, c, .. } => {
            let k = floor_boundary(m, usize::from(at));
            infallible(backing, || s.insert(k, ch(c)));
            m.insert(k, ch(c));
        }
        Op::Remove { at, .. } => {
            if m.is_empty() {
                return;
            }
            let k = floor_boundary(m, usize::from(at) % m.len());
            assert_eq!(s.remove(k), m.remove(k));
        }
        Op::Extend { n, how, .. } => infallible(backing, || {
            let src = text(n, how & 4 != 0);
            match how % 4 {
                0 => {
                    s.push_str(&src);
                    m.push_str(&src);
                }
                1 => {
                    s.extend(src.chars());
                    m.push_str(&src);
                }
                2 => {
                    let k = floor_boundary(m, usize::from(n));
                    s.insert_str(k, &src);
                    m.insert_str(k, &src);
                }
                _ => {
                    write!(s, "{n}-{src}").unwrap();
                    write!(m, "{n}-{src}").unwrap();
                }
            }
        }),
        Op::Truncate { len, .. } => {
            let k = floor_boundary(m, usize::from(len));
            s.truncate(k);
            m.truncate(k);
        }
        Op::Clear { .. } => {
            s.clear();
            m.clear();
        }
        Op::Reserve { add, how, huge, .. } => {
            let add = usize::from(add);
            if how % 2 == 0 {
                infallible(backing, || s.reserve(add));
            } else {
                let add = if huge { usize::MAX / 2 + add } else { add };
                let before = (s.as_ptr() as usize, s.len(), s.capacity());
                if s.try_reserve(add).is_err() {
                    assert_eq!((s.as_ptr() as usize, s.len(), s.capacity()), before, "a failed try_reserve changed it");
                    return;
                }
            }
            assert!(s.capacity() >= s.len() + add, "reserve gave too little");
        }
        Op::Shrink { .. } => {
            infallible(backing, || s.shrink_to_fit());
            assert_eq!(s.capacity(), s.len(), "shrink_to_fit kept spare room");
        }
        Op::Drain { a, b, .. } => {
            let a = floor_boundary(m, usize::from(a));
            let b = floor_boundary(m, usize::from(b));
            let (lo, hi) = (a.min(b), a.max(b));
            let got: std::string::String = s.drain(lo..hi).collect();
            let want: std::string::String = m.drain(lo..hi).collect();
            assert_eq!(got, want);
        }
        Op::Retain { modulo, .. } => {
            let c = ch(modulo);
            s.retain(|x| x != c);
            m.retain(|x| x != c);
        }
        _ => {}
    }
}

type A<'a, const M: usize> = Arena<M, &'a Counting>;

/// Checks the arena's books after a step.
fn check_books<const M: usize>(arena: &A<'_, M>, backing: &Counting) {
    arena.check_invariants();
    assert_eq!(arena.stats().held_bytes, backing.live_bytes.get(), "held bytes differ from the allocator's count");
}

fn on_arena<const M: usize>(arena: &mut A<'_, M>, ops: &mut std::slice::Iter<'_, Op>, backing: &Counting) {
    loop {
        let level = Level { depth: 0, can_reset: true };
        let exit = steps(&*arena, ops, backing, &level, &|| check_books(arena, backing));
        match exit {
            Exit::End => return,
            Exit::Leave => {}
            Exit::Reset => {
                arena.reset();
                assert_eq!(arena.stats().used, 0);
            }
            Exit::Guard => {
                let used = arena.stats().used;
                on_guard(&mut arena.scope_guard(), ops, backing, 1);
                assert_eq!(arena.stats().used, used, "a guard's exit did not restore the arena");
            }
            Exit::Scope => {
                let used = arena.stats().used;
                arena.scope(|s| on_scope(s, ops, backing, 1));
                assert_eq!(arena.stats().used, used, "a scope's exit did not restore the arena");
            }
        }
        check_books(arena, backing);
    }
}

fn on_guard<const M: usize>(
    g: &mut ScopeGuard<'_, M, &Counting>,
    ops: &mut std::slice::Iter<'_, Op>,
    backing: &Counting,
    depth: usize,
) {
    loop {
        let level = Level { depth, can_reset: false };
        let arena: &A<'_, M> = g;
        let exit = steps(arena, ops, backing, &level, &|| check_books(arena, backing));
        match exit {
            Exit::End | Exit::Leave => return,
            Exit::Guard | Exit::Scope => {
                let used = g.stats().used;
                on_guard(&mut g.scope_guard(), ops, backing, depth + 1);
                assert_eq!(g.stats().used, used, "a nested guard's exit did not restore the arena");
            }
            Exit::Reset => unreachable!("guards do not reset"),
        }
        check_books(g, backing);
    }
}

fn on_scope<const M: usize>(
    s: &mut Scope<'_, '_, M, &Counting>,
    ops: &mut std::slice::Iter<'_, Op>,
    backing: &Counting,
    depth: usize,
) {
    loop {
        let level = Level { depth, can_reset: false };
        // A scope hides its arena: the books are checked when it ends.
        match steps(&*s, ops, backing, &level, &|| {}) {
            Exit::End | Exit::Leave => return,
            Exit::Guard | Exit::Scope => s.scope(|inner| on_scope(inner, ops, backing, depth + 1)),
            Exit::Reset => unreachable!("scopes do not reset"),
        }
    }
}

fn program<const M: usize>(first: u8, ops: &[Op]) {
    let backing = Counting::default();
    {
        let mut arena: A<'_, M> =
            if first & 1 == 0 { Arena::new_in(&backing) } else { Arena::new_in(&backing).with_max_chunk_size(4096) };
        on_arena(&mut arena, &mut ops.iter(), &backing);
        arena.reset();
        check_books(&arena, &backing);
    }
    assert_eq!(backing.live_bytes.get(), 0, "the arena leaked");
    assert_eq!(live_elements(), 0, "elements leaked");
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok(first) = u8::arbitrary(&mut u) else { return };
    let Ok(ops) = std::vec::Vec::<Op>::arbitrary(&mut u) else { return };
    match first >> 6 {
        0 | 1 => program::<1>(first, &ops),
        2 => program::<8>(first, &ops),
        _ => program::<16>(first, &ops),
    }
});
