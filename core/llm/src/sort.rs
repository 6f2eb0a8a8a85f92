//! Stable sorting through one copy of the standard library's sort.
//!
//! `slice::sort_by` is generic over the item and the comparator, so every call site adds its own
//! copy of the sort (about 4 KB of wasm each) to the browser bundle. Here the standard sort only
//! ever orders indices under a `dyn` comparator, and callers sort their items by that order.

use std::cmp::Ordering;

/// The order that sorts `len` items by `compare` (which compares item indices), stably.
pub fn sorted_order(len: usize, compare: &dyn Fn(usize, usize) -> Ordering) -> Vec<usize> {
    let mut order: Vec<usize> = (0..len).collect();
    order.sort_by(|a, b| compare(*a, *b));
    order
}

/// Sorts `items` by `compare`, stably, like `slice::sort_by`.
pub fn sort_by<T>(items: &mut Vec<T>, compare: impl Fn(&T, &T) -> Ordering) {
    let order = sorted_order(items.len(), &|a, b| compare(&items[a], &items[b]));
    let mut slots: Vec<Option<T>> = std::mem::take(items).into_iter().map(Some).collect();
    items.extend(order.into_iter().filter_map(|i| slots[i].take()));
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    #[test]
    fn sorts_stably() {
        let mut items = vec![(2, 'a'), (1, 'b'), (2, 'c'), (0, 'd'), (1, 'e')];
        sort_by(&mut items, |a, b| a.0.cmp(&b.0));
        assert_eq!(items, [(0, 'd'), (1, 'b'), (1, 'e'), (2, 'a'), (2, 'c')]);
        assert_eq!(sorted_order(3, &|a, b| b.cmp(&a)), [2, 1, 0]);
    }
}
