//! A fast hasher for maps keyed by short token strings.

use std::hash::{BuildHasherDefault, Hasher};

/// Hashes with [`Fnv1a`].
pub(crate) type FnvBuild = BuildHasherDefault<Fnv1a>;

/// FNV-1a. Recovering GPT-2's merges looks up keys of a few bytes about a million times;
/// with std's DoS-resistant SipHash the whole built-in build took ~15% longer. The keys
/// are vocabulary entries (r50k_base, or the model's own tokenizer.json), never
/// attacker-controlled input.
pub(crate) struct Fnv1a(u64);

impl Default for Fnv1a {
    fn default() -> Self {
        Fnv1a(0xCBF2_9CE4_8422_2325)
    }
}

impl Hasher for Fnv1a {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 = (self.0 ^ u64::from(byte)).wrapping_mul(0x0100_0000_01B3);
        }
    }
}
