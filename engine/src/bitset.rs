//! Fixed-width bit sets that hold one bit per board square.
//!
//! Square `rank * n + file` is bit number `rank * n + file` (no padding column), so a
//! board of `n x n` squares needs `n * n` bits. [`u128`] holds boards up to 11x11 and
//! [`Wide`] (384 bits) boards up to 19x19. Everything above this module is generic over
//! [`BitSet`], so a board size only picks the narrowest type that fits it.

use std::fmt::Debug;
use std::hash::Hash;
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not};

/// A set of square indices stored as bits; the operations the engine needs, no more.
pub trait BitSet:
    Copy
    + Eq
    + Hash
    + Default
    + Debug
    + Send
    + Sync
    + 'static
    + BitAnd<Output = Self>
    + BitOr<Output = Self>
    + BitXor<Output = Self>
    + Not<Output = Self>
    + BitAndAssign
    + BitOrAssign
    + BitXorAssign
{
    /// How many squares fit.
    const CAPACITY: usize;
    /// The empty set.
    const EMPTY: Self;
    /// The set holding only square `i`.
    fn single(i: usize) -> Self;
    /// The set of squares `0..i`.
    fn below(i: usize) -> Self;
    /// Every index moved up by `k` (`k < CAPACITY`); bits pushed past the top are lost.
    fn shl(self, k: u32) -> Self;
    /// Every index moved down by `k` (`k < CAPACITY`); bits pushed below zero are lost.
    fn shr(self, k: u32) -> Self;
    /// Number of squares in the set.
    fn count(self) -> u32;
    /// True when no square is set.
    fn is_empty(self) -> bool;
    /// The smallest index; only meaningful on a non-empty set.
    fn lowest(self) -> usize;
    /// The largest index; only meaningful on a non-empty set.
    fn highest(self) -> usize;
    /// The set without its smallest index.
    fn without_lowest(self) -> Self;

    /// True when square `i` is in the set.
    #[inline]
    fn has(self, i: usize) -> bool {
        !(self & Self::single(i)).is_empty()
    }
    /// True when the set holds at least one square.
    #[inline]
    fn any(self) -> bool {
        !self.is_empty()
    }
    /// The indices in increasing order.
    #[inline]
    fn squares(self) -> Squares<Self> {
        Squares(self)
    }
    /// The `k`-th smallest index (0-based); `k` must be below [`BitSet::count`].
    #[inline]
    fn nth(self, k: u32) -> usize {
        let mut s = self;
        for _ in 0..k {
            s = s.without_lowest();
        }
        s.lowest()
    }
}

/// Iterator over the indices of a [`BitSet`], smallest first.
#[derive(Clone, Copy, Debug)]
pub struct Squares<B>(B);

impl<B: BitSet> Iterator for Squares<B> {
    type Item = usize;
    #[inline]
    fn next(&mut self) -> Option<usize> {
        if self.0.is_empty() {
            None
        } else {
            let i = self.0.lowest();
            self.0 = self.0.without_lowest();
            Some(i)
        }
    }
}

impl BitSet for u128 {
    const CAPACITY: usize = 128;
    const EMPTY: Self = 0;
    #[inline]
    fn single(i: usize) -> Self {
        1u128 << i
    }
    #[inline]
    fn below(i: usize) -> Self {
        if i >= 128 {
            !0
        } else {
            (1u128 << i) - 1
        }
    }
    #[inline]
    fn shl(self, k: u32) -> Self {
        self << k
    }
    #[inline]
    fn shr(self, k: u32) -> Self {
        self >> k
    }
    #[inline]
    fn count(self) -> u32 {
        self.count_ones()
    }
    #[inline]
    fn is_empty(self) -> bool {
        self == 0
    }
    #[inline]
    fn lowest(self) -> usize {
        self.trailing_zeros() as usize
    }
    #[inline]
    fn highest(self) -> usize {
        127 - self.leading_zeros() as usize
    }
    #[inline]
    fn without_lowest(self) -> Self {
        self & self.wrapping_sub(1)
    }
    #[inline]
    fn has(self, i: usize) -> bool {
        (self >> i) & 1 != 0
    }
}

const WORDS: usize = 6;

/// A 384-bit set for boards of 13x13 up to 19x19.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, Debug)]
pub struct Wide(pub [u64; WORDS]);

macro_rules! wide_op {
    ($tr:ident, $f:ident, $tra:ident, $fa:ident, $op:tt) => {
        impl $tr for Wide {
            type Output = Wide;
            #[inline]
            fn $f(self, o: Wide) -> Wide {
                let mut r = [0u64; WORDS];
                for (i, w) in r.iter_mut().enumerate() {
                    *w = self.0[i] $op o.0[i];
                }
                Wide(r)
            }
        }
        impl $tra for Wide {
            #[inline]
            fn $fa(&mut self, o: Wide) {
                *self = *self $op o;
            }
        }
    };
}
wide_op!(BitAnd, bitand, BitAndAssign, bitand_assign, &);
wide_op!(BitOr, bitor, BitOrAssign, bitor_assign, |);
wide_op!(BitXor, bitxor, BitXorAssign, bitxor_assign, ^);

impl Not for Wide {
    type Output = Wide;
    #[inline]
    fn not(self) -> Wide {
        Wide(self.0.map(|w| !w))
    }
}

impl BitSet for Wide {
    const CAPACITY: usize = 64 * WORDS;
    const EMPTY: Self = Wide([0; WORDS]);
    #[inline]
    fn single(i: usize) -> Self {
        let mut r = [0u64; WORDS];
        r[i / 64] = 1u64 << (i % 64);
        Wide(r)
    }
    #[inline]
    fn below(i: usize) -> Self {
        let mut r = [0u64; WORDS];
        for (w, word) in r.iter_mut().enumerate() {
            let lo = w * 64;
            *word = if i >= lo + 64 {
                !0
            } else if i <= lo {
                0
            } else {
                (1u64 << (i - lo)) - 1
            };
        }
        Wide(r)
    }
    #[inline]
    #[allow(clippy::needless_range_loop)] // word arithmetic reads clearer with indices
    fn shl(self, k: u32) -> Self {
        let (words, bits) = ((k / 64) as usize, k % 64);
        let mut r = [0u64; WORDS];
        for i in words..WORDS {
            let src = i - words;
            r[i] = self.0[src] << bits;
            if bits > 0 && src > 0 {
                r[i] |= self.0[src - 1] >> (64 - bits);
            }
        }
        Wide(r)
    }
    #[inline]
    #[allow(clippy::needless_range_loop)]
    fn shr(self, k: u32) -> Self {
        let (words, bits) = ((k / 64) as usize, k % 64);
        let mut r = [0u64; WORDS];
        for i in 0..WORDS - words {
            let src = i + words;
            r[i] = self.0[src] >> bits;
            if bits > 0 && src + 1 < WORDS {
                r[i] |= self.0[src + 1] << (64 - bits);
            }
        }
        Wide(r)
    }
    #[inline]
    fn count(self) -> u32 {
        self.0.iter().map(|w| w.count_ones()).sum()
    }
    #[inline]
    fn is_empty(self) -> bool {
        self.0.iter().all(|&w| w == 0)
    }
    #[inline]
    fn lowest(self) -> usize {
        for (i, &w) in self.0.iter().enumerate() {
            if w != 0 {
                return i * 64 + w.trailing_zeros() as usize;
            }
        }
        Self::CAPACITY
    }
    #[inline]
    fn highest(self) -> usize {
        for i in (0..WORDS).rev() {
            let w = self.0[i];
            if w != 0 {
                return i * 64 + 63 - w.leading_zeros() as usize;
            }
        }
        0
    }
    #[inline]
    fn without_lowest(self) -> Self {
        let mut r = self.0;
        for w in r.iter_mut() {
            if *w != 0 {
                *w &= *w - 1;
                break;
            }
        }
        Wide(r)
    }
    #[inline]
    fn has(self, i: usize) -> bool {
        (self.0[i / 64] >> (i % 64)) & 1 != 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check<B: BitSet>() {
        let n = B::CAPACITY;
        for i in [0, 1, 63, 64, 65, n - 2, n - 1] {
            let s = B::single(i);
            assert_eq!(s.count(), 1);
            assert_eq!(s.lowest(), i);
            assert_eq!(s.highest(), i);
            assert!(s.has(i));
            assert_eq!(B::below(i).count() as usize, i);
            for k in [1, 5, 63, 64, 65, 130].into_iter().filter(|&k| k < n) {
                if i + k < n {
                    assert_eq!(s.shl(k as u32).lowest(), i + k);
                    assert_eq!(s.shl(k as u32).shr(k as u32), s);
                } else {
                    assert!(s.shl(k as u32).is_empty());
                }
            }
            if i >= 3 {
                assert_eq!(s.shr(3).lowest(), i - 3);
            } else {
                assert!(s.shr(3).is_empty());
            }
        }
        let s = B::single(3) | B::single(70) | B::single(100);
        assert_eq!(s.squares().collect::<Vec<_>>(), vec![3, 70, 100]);
        assert_eq!(s.nth(1), 70);
        assert_eq!(s.without_lowest().lowest(), 70);
    }

    #[test]
    fn u128_and_wide_agree_on_basic_operations() {
        check::<u128>();
        check::<Wide>();
    }
}
