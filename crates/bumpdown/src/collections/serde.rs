//! `Serialize` for the arena collections (the `serde` feature). Deserializing would need
//! an arena to put the data in, which serde's traits have no place for.

use serde::ser::{Serialize, Serializer};

use super::{Box, String, Vec};

impl<T: Serialize + ?Sized> Serialize for Box<'_, T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        (**self).serialize(serializer)
    }
}

impl<T: Serialize> Serialize for Vec<'_, T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
    }
}

impl Serialize for String<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self)
    }
}
