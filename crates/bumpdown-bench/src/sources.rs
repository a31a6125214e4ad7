//! Data that the copy rows copy from.
//!
//! Each source is a `static` aligned to 4 KiB and at most 4 KiB long, so no
//! source ever straddles a page: a copy that crossed a page boundary (or a cache
//! line more than its size needs) in one build but not another would show up as a
//! difference between contenders that has nothing to do with them.

/// Places `T` at the start of a 4 KiB page.
#[repr(C, align(4096))]
pub struct PageAligned<T>(pub T);

/// The longest source any row copies, in elements.
pub const MAX_LEN: usize = 128;

/// Source for `u8` slices and arrays.
pub static U8: PageAligned<[u8; MAX_LEN]> = PageAligned([0x5a; MAX_LEN]);
/// Source for `u16` slices.
pub static U16: PageAligned<[u16; MAX_LEN]> = PageAligned([0x5a5a; MAX_LEN]);
/// Source for `u32` slices.
pub static U32: PageAligned<[u32; MAX_LEN]> = PageAligned([0x5a5a_5a5a; MAX_LEN]);
/// Source for `u64` slices.
pub static U64: PageAligned<[u64; MAX_LEN]> = PageAligned([0x5a5a_5a5a_5a5a_5a5a; MAX_LEN]);
/// Source for `u128` slices (2 KiB: still inside one page).
pub static U128: PageAligned<[u128; MAX_LEN]> = PageAligned([0x5a; MAX_LEN]);
/// Source for strings: ASCII, so every prefix is valid UTF-8.
pub static TEXT: PageAligned<[u8; MAX_LEN]> = PageAligned(ascii_text());

const fn ascii_text() -> [u8; MAX_LEN] {
    let mut text = [0u8; MAX_LEN];
    let mut i = 0;
    while i < MAX_LEN {
        text[i] = b'a' + (i % 26) as u8;
        i += 1;
    }
    text
}

/// The first `len` characters of [`TEXT`].
pub fn text(len: usize) -> &'static str {
    std::str::from_utf8(&TEXT.0[..len]).expect("TEXT is ASCII")
}

/// The first `N` bytes of [`TEXT`], as an array reference so `N` stays a
/// compile-time constant (what a string literal gives the compiler).
pub fn text_lit<const N: usize>() -> &'static [u8; N] {
    TEXT.0.first_chunk::<N>().expect("N <= MAX_LEN")
}

/// The first `N` bytes of [`U8`], as an array reference (a slice literal).
pub fn bytes_lit<const N: usize>() -> &'static [u8; N] {
    U8.0.first_chunk::<N>().expect("N <= MAX_LEN")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_start_pages_and_fit_in_them() {
        fn check<T>(source: &'static PageAligned<T>) {
            let addr = source as *const PageAligned<T> as usize;
            assert_eq!(addr % 4096, 0);
            assert!(size_of::<T>() <= 4096);
        }
        check(&U8);
        check(&U16);
        check(&U32);
        check(&U64);
        check(&U128);
        check(&TEXT);
        assert!(text(128).is_ascii());
    }
}
