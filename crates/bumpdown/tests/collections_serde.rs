//! `Serialize` for the collections (the `serde` feature):
//! `cargo test -p bumpdown --features serde --test collections_serde`.
#![cfg(feature = "serde")]

use bumpdown::collections::{Box, String, Vec};
use bumpdown::Arena;

#[test]
fn collections_serialize_like_their_std_namesakes() {
    let arena = Arena::new();
    let v: Vec<u32> = bumpdown::vec![in &arena; 1, 2, 3];
    let s = String::from_str_in("quote \" and é", &arena);
    let b = Box::new_in((7u8, "x"), &arena);
    let nested = bumpdown::vec![in &arena; String::from_str_in("a", &arena), String::new_in(&arena)];
    assert_eq!(serde_json::to_string(&v).unwrap(), serde_json::to_string(&[1, 2, 3]).unwrap());
    assert_eq!(serde_json::to_string(&s).unwrap(), serde_json::to_string("quote \" and é").unwrap());
    assert_eq!(serde_json::to_string(&b).unwrap(), "[7,\"x\"]");
    assert_eq!(serde_json::to_string(&nested).unwrap(), "[\"a\",\"\"]");
}
