//! The exact k nearest neighbours of each query, by brute force over every document: the
//! truth each approximate answer's recall is measured against. Squared L2 distance (the
//! order `l2_norm` and `l2` rank in), nearest first, ties to the lower id.
//!
//! Cache-blocked: each thread takes a share of the queries and walks the documents a block
//! at a time (a block fits the L2 cache), comparing every query of its share with the block
//! before moving on, so the corpus streams from memory once per thread rather than once per
//! query. The distance loop is written in lanes the compiler vectorizes, four documents at a time, with AVX2
//! where the processor has it.

use std::collections::BinaryHeap;

use super::space::Space;

/// The documents' vectors and buckets, in id order.
#[derive(Debug, Clone)]
pub struct Corpus {
    pub dims: usize,
    /// `docs × dims` components.
    pub vectors: Vec<f32>,
    pub buckets: Vec<u32>,
}

impl Corpus {
    /// Documents `0..docs` of `space`, made on every core.
    pub fn generate(space: &Space, docs: u64) -> Corpus {
        let dims = space.dims;
        let n = docs as usize;
        let mut vectors = vec![0.0f32; n * dims];
        let mut buckets = vec![0u32; n];
        let threads = threads().min(n.max(1));
        let per = n.div_ceil(threads).max(1);
        std::thread::scope(|s| {
            for (t, (vs, bs)) in vectors
                .chunks_mut(per * dims.max(1))
                .zip(buckets.chunks_mut(per))
                .enumerate()
            {
                s.spawn(move || {
                    for (i, b) in bs.iter_mut().enumerate() {
                        let id = (t * per + i) as u64;
                        *b = space.doc(id, &mut vs[i * dims..(i + 1) * dims]);
                    }
                });
            }
        });
        Corpus {
            dims,
            vectors,
            buckets,
        }
    }

    pub fn len(&self) -> usize {
        self.buckets.len()
    }

    pub fn is_empty(&self) -> bool {
        self.buckets.is_empty()
    }
}

/// The cores to use.
pub fn threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Squared L2 distance, summed in eight lanes.
#[inline(always)]
pub fn l2(a: &[f32], b: &[f32]) -> f32 {
    l2_of(a, [b])[0]
}

/// Squared L2 distances from `q` to each of `xs`, summed in eight lanes each: the query's
/// components are loaded once for all of them, and their sums are independent chains, so
/// an addition need not wait for the one before it (one chain held the loop to the adder's
/// latency). Each distance is summed in the same order whatever `N` is.
#[inline(always)]
fn l2_of<const N: usize>(q: &[f32], xs: [&[f32]; N]) -> [f32; N] {
    let mut acc = [[0.0f32; 8]; N];
    let whole = q.len() / 8 * 8;
    let mut at = 0;
    while at < whole {
        let qc = &q[at..at + 8];
        for (a, x) in acc.iter_mut().zip(&xs) {
            let xc = &x[at..at + 8];
            for i in 0..8 {
                let d = qc[i] - xc[i];
                a[i] += d * d;
            }
        }
        at += 8;
    }
    let mut out = [0.0f32; N];
    for ((o, a), x) in out.iter_mut().zip(&acc).zip(&xs) {
        let mut sum = ((a[0] + a[4]) + (a[1] + a[5])) + ((a[2] + a[6]) + (a[3] + a[7]));
        for (qv, xv) in q[whole..].iter().zip(&x[whole..]) {
            let d = qv - xv;
            sum += d * d;
        }
        *o = sum;
    }
    out
}

/// For each query (`queries`: one after another, `corpus.dims` each), the ids of its `k`
/// nearest documents among those whose bucket is below `keep_below` (all when `None`),
/// nearest first.
pub fn nearest(
    corpus: &Corpus,
    queries: &[f32],
    k: usize,
    keep_below: Option<u32>,
) -> Vec<Vec<u32>> {
    let dims = corpus.dims.max(1);
    let nq = queries.len() / dims;
    if nq == 0 || k == 0 {
        return vec![Vec::new(); nq];
    }
    let threads = threads().min(nq);
    let per = nq.div_ceil(threads);
    // Documents per block: a quarter of a megabyte of vectors.
    let block = (65_536 / dims).max(16);
    let mut out: Vec<Vec<u32>> = Vec::with_capacity(nq);
    std::thread::scope(|s| {
        let handles: Vec<_> = queries
            .chunks(per * dims)
            .map(|share| s.spawn(move || scan(corpus, share, k, keep_below, block)))
            .collect();
        for h in handles {
            out.extend(h.join().unwrap_or_default());
        }
    });
    out
}

/// One thread's share of the queries against every document, with the widest vectors the
/// processor has: AVX2 lanes of eight where it has them (the same sums lane by lane, so the
/// same distances to the bit), else the baseline's lanes of four.
fn scan(
    corpus: &Corpus,
    share: &[f32],
    k: usize,
    keep_below: Option<u32>,
    block: usize,
) -> Vec<Vec<u32>> {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the processor has AVX2, checked on the line above.
        return unsafe { scan_avx2(corpus, share, k, keep_below, block) };
    }
    scan_lanes(corpus, share, k, keep_below, block)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn scan_avx2(
    corpus: &Corpus,
    share: &[f32],
    k: usize,
    keep_below: Option<u32>,
    block: usize,
) -> Vec<Vec<u32>> {
    scan_lanes(corpus, share, k, keep_below, block)
}

#[inline(always)]
fn scan_lanes(
    corpus: &Corpus,
    share: &[f32],
    k: usize,
    keep_below: Option<u32>,
    block: usize,
) -> Vec<Vec<u32>> {
    let dims = corpus.dims.max(1);
    let n = share.len() / dims;
    // Max-heaps of (distance bits, id): a non-negative f32's bits order as the float does,
    // and the id breaks ties to the lower.
    let mut heaps: Vec<BinaryHeap<u64>> =
        (0..n).map(|_| BinaryHeap::with_capacity(k + 1)).collect();
    for (b, docs) in corpus.vectors.chunks(block * dims).enumerate() {
        let first = b * block;
        for (q, heap) in share.chunks_exact(dims).zip(heaps.iter_mut()) {
            let mut offer = |id: usize, d: f32| {
                if keep_below.is_some_and(|limit| corpus.buckets[id] >= limit) {
                    return;
                }
                let key = (u64::from(d.to_bits()) << 32) | id as u64;
                if heap.len() < k {
                    heap.push(key);
                } else if heap.peek().is_some_and(|top| key < *top) {
                    heap.pop();
                    heap.push(key);
                }
            };
            // Four documents at a time, then the rest one by one.
            let mut fours = docs.chunks_exact(4 * dims);
            let mut id = first;
            for four in fours.by_ref() {
                let (a, rest) = four.split_at(dims);
                let (b, rest) = rest.split_at(dims);
                let (c, d) = rest.split_at(dims);
                for (j, dist) in l2_of(q, [a, b, c, d]).into_iter().enumerate() {
                    offer(id + j, dist);
                }
                id += 4;
            }
            for x in fours.remainder().chunks_exact(dims) {
                offer(id, l2(q, x));
                id += 1;
            }
        }
    }
    heaps
        .into_iter()
        .map(|h| {
            h.into_sorted_vec()
                .into_iter()
                .map(|key| key as u32)
                .collect()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The plainest possible exact search: every distance, sorted.
    fn sorted_all(corpus: &Corpus, q: &[f32], k: usize, keep_below: Option<u32>) -> Vec<u32> {
        let mut all: Vec<(f32, u32)> = corpus
            .vectors
            .chunks_exact(corpus.dims)
            .enumerate()
            .filter(|(i, _)| keep_below.is_none_or(|l| corpus.buckets[*i] < l))
            .map(|(i, x)| {
                let d: f32 = q
                    .iter()
                    .zip(x)
                    .map(|(a, b)| (a - b) as f64)
                    .map(|d| d * d)
                    .sum::<f64>() as f32;
                (d, i as u32)
            })
            .collect();
        all.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        all.into_iter().take(k).map(|p| p.1).collect()
    }

    #[test]
    fn the_blocked_search_finds_what_sorting_every_distance_finds() {
        for dims in [1, 7, 16, 33] {
            let space = Space::new(3, dims);
            let corpus = Corpus::generate(&space, 3_000);
            assert_eq!(corpus.len(), 3_000);
            let queries = space.queries(9);
            for (k, keep) in [
                (1, None),
                (10, None),
                (100, Some(500)),
                (10, Some(1)),
                (5, Some(0)),
            ] {
                let found = nearest(&corpus, &queries, k, keep);
                assert_eq!(found.len(), 9);
                for (j, ids) in found.iter().enumerate() {
                    let q = &queries[j * dims..(j + 1) * dims];
                    let expected = sorted_all(&corpus, q, k, keep);
                    // Sums in another order may swap two all but equal distances: the sets
                    // agree, and the order does but for such pairs.
                    let mut a = ids.clone();
                    let mut b = expected.clone();
                    a.sort_unstable();
                    b.sort_unstable();
                    assert_eq!(a, b, "dims {dims} k {k} keep {keep:?} query {j}");
                    if let Some(limit) = keep {
                        assert!(ids.iter().all(|&i| corpus.buckets[i as usize] < limit));
                    }
                }
            }
        }
    }
}
