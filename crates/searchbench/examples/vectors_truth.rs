//! What the exact neighbours of the `vectors` workload cost (issue 82): DOCS vectors of DIMS
//! dimensions, QUERIES queries, their K nearest by brute force on every core; beside it the
//! machine's memory read bandwidth, measured on the same vectors, and what it allows: one
//! scan of the corpus per query at that bandwidth (what a search that streams the corpus for
//! each query would take), and one scan per thread (what the blocked search reads).
//!
//!   cargo run --release -p searchbench --example vectors_truth -- [DOCS] [DIMS] [QUERIES] [K] [ROUNDS]

use std::time::Instant;

use searchbench::workload::vectors::space::Space;
use searchbench::workload::vectors::truth::{nearest, threads, Corpus};

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let args: Vec<u64> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("numbers: DOCS DIMS QUERIES K ROUNDS"))
        .collect();
    let arg = |i: usize, default: u64| args.get(i).copied().unwrap_or(default);
    let (docs, dims, queries, k, rounds) = (
        arg(0, 1_000_000),
        arg(1, 128) as usize,
        arg(2, 1_000) as usize,
        arg(3, 100) as usize,
        arg(4, 3) as usize,
    );
    let space = Space::new(1, dims);
    let t = Instant::now();
    let corpus = Corpus::generate(&space, docs);
    let generated = t.elapsed().as_secs_f64();
    let q = space.queries(queries);
    let bytes = (corpus.vectors.len() * 4) as f64;

    // Read bandwidth: every thread sums the whole corpus (as the blocked search streams it).
    let mut bandwidth = Vec::new();
    for _ in 0..rounds.max(3) {
        let t = Instant::now();
        let sums: Vec<f32> = std::thread::scope(|s| {
            let hs: Vec<_> = (0..threads())
                .map(|_| {
                    s.spawn(|| {
                        corpus
                            .vectors
                            .chunks_exact(16)
                            .fold([0f32; 16], |mut a, c| {
                                for i in 0..16 {
                                    a[i] += c[i];
                                }
                                a
                            })
                            .iter()
                            .sum::<f32>()
                    })
                })
                .collect();
            hs.into_iter().map(|h| h.join().unwrap()).collect()
        });
        std::hint::black_box(sums);
        bandwidth.push(bytes * threads() as f64 / t.elapsed().as_secs_f64());
    }
    let bw = median(bandwidth);

    let mut times = Vec::new();
    let mut found = Vec::new();
    for _ in 0..rounds {
        let t = Instant::now();
        found = nearest(&corpus, &q, k, None);
        times.push(t.elapsed().as_secs_f64());
    }
    let exact = median(times.clone());
    assert!(found.iter().all(|f| f.len() == k));
    let flops = 3.0 * docs as f64 * dims as f64 * queries as f64;
    let scan_per_query = bytes * queries as f64 / bw;
    let scan_per_thread = bytes * threads() as f64 / bw;
    println!(
        "{docs} vectors x {dims} dims ({:.0} MB), {queries} queries, k = {k}, {} threads",
        bytes / 1e6,
        threads()
    );
    println!("corpus generated in {generated:.2} s");
    println!(
        "memory read bandwidth: {:.1} GB/s (median of {})",
        bw / 1e9,
        rounds.max(3)
    );
    println!(
        "exact neighbours: median {exact:.2} s over {rounds} rounds ({:?}), {:.1} GFLOP/s",
        times.iter().map(|t| format!("{t:.2}")).collect::<Vec<_>>(),
        flops / exact / 1e9
    );
    println!(
        "bandwidth bound, one scan per query: {scan_per_query:.1} s ({:.2}x the exact search); one scan per thread: {scan_per_thread:.2} s",
        scan_per_query / exact
    );
}
