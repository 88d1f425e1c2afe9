//! The vectors of the `vectors` workload: clustered float vectors, deterministic by seed and
//! reachable one by one (document `i` and query `j` each have a stream of their own), so the
//! corpus, the queries and their exact neighbours come from the seed alone, in any order.
//!
//! Each vector is one of [`CENTRES`] centres (drawn uniformly in [-1, 1]^dims) plus Gaussian
//! noise of [`SPREAD`] per component: clusters that overlap, as embeddings of related texts
//! do, so the approximate search has near neighbours to confuse. A query is drawn the same
//! way. Each document also has a `bucket`, uniform in `0..BUCKETS`, the field its filters cut
//! on: `bucket < 500` keeps half of the documents, `bucket < 1` one in a thousand.

use crate::rng::Rng;

/// Cluster centres.
pub const CENTRES: u64 = 64;

/// Standard deviation of the noise around a centre, per component.
pub const SPREAD: f64 = 0.35;

/// The filter field's values: `0..BUCKETS`.
pub const BUCKETS: u64 = 1000;

/// The most dimensions a vector may have (Elasticsearch's `dense_vector` limit).
pub const MAX_DIMS: usize = 4096;

/// Streams of the seed: the centres, the documents' (one each), the queries' (one each).
const CENTRE_STREAM: u64 = 0x7665_6374;
const DOC_STREAM: u64 = 1 << 48;
const QUERY_STREAM: u64 = 2 << 48;

/// The space one seed and one dimension count make.
#[derive(Debug, Clone)]
pub struct Space {
    pub seed: u64,
    pub dims: usize,
    /// `CENTRES × dims` components.
    centres: Vec<f32>,
}

impl Space {
    pub fn new(seed: u64, dims: usize) -> Space {
        let mut rng = Rng::new(seed, CENTRE_STREAM);
        let centres = (0..CENTRES as usize * dims)
            .map(|_| (rng.unit() * 2.0 - 1.0) as f32)
            .collect();
        Space {
            seed,
            dims,
            centres,
        }
    }

    /// Writes a vector drawn from `rng` into `out` (`dims` components).
    fn draw(&self, rng: &mut Rng, out: &mut [f32]) {
        let c = rng.below(CENTRES) as usize;
        let centre = &self.centres[c * self.dims..(c + 1) * self.dims];
        for (o, m) in out.iter_mut().zip(centre) {
            *o = m + (SPREAD * rng.normalish()) as f32;
        }
    }

    /// Document `i`: its bucket, and its vector into `out`.
    pub fn doc(&self, i: u64, out: &mut [f32]) -> u32 {
        let mut rng = Rng::new(self.seed, DOC_STREAM ^ i);
        let bucket = rng.below(BUCKETS) as u32;
        self.draw(&mut rng, out);
        bucket
    }

    /// Document `i`'s bucket alone.
    pub fn bucket(&self, i: u64) -> u32 {
        Rng::new(self.seed, DOC_STREAM ^ i).below(BUCKETS) as u32
    }

    /// Query `j`'s vector into `out`.
    pub fn query(&self, j: u64, out: &mut [f32]) {
        let mut rng = Rng::new(self.seed, QUERY_STREAM ^ j);
        self.draw(&mut rng, out);
    }

    /// The first `n` queries, one after another (`n × dims`).
    pub fn queries(&self, n: usize) -> Vec<f32> {
        let mut out = vec![0.0; n * self.dims];
        for (j, q) in out.chunks_exact_mut(self.dims.max(1)).enumerate() {
            self.query(j as u64, q);
        }
        out
    }
}

/// Appends `{"id":I,"bucket":B,"v":[...]}` for document `i` of `space`: the floats in their
/// shortest form that reads back as the same f32, so the engine holds exactly the vectors
/// the neighbours were computed on.
pub fn write_doc(space: &Space, i: u64, scratch: &mut Vec<f32>, out: &mut Vec<u8>) {
    scratch.resize(space.dims, 0.0);
    let bucket = space.doc(i, scratch);
    let mut numbers = itoa::Buffer::new();
    out.extend_from_slice(b"{\"id\":");
    out.extend_from_slice(numbers.format(i).as_bytes());
    out.extend_from_slice(b",\"bucket\":");
    out.extend_from_slice(numbers.format(bucket).as_bytes());
    out.extend_from_slice(b",\"v\":[");
    let mut floats = ryu::Buffer::new();
    for (n, x) in scratch.iter().enumerate() {
        if n > 0 {
            out.push(b',');
        }
        out.extend_from_slice(floats.format_finite(*x).as_bytes());
    }
    out.extend_from_slice(b"]}");
}

/// A vector as JSON, its floats as [`write_doc`] writes them.
pub fn json_vector(v: &[f32], out: &mut String) {
    let mut floats = ryu::Buffer::new();
    out.push('[');
    for (n, x) in v.iter().enumerate() {
        if n > 0 {
            out.push(',');
        }
        out.push_str(floats.format_finite(*x));
    }
    out.push(']');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documents_and_queries_come_from_the_seed_alone_and_read_back_exactly() {
        let a = Space::new(7, 12);
        let b = Space::new(7, 12);
        let (mut x, mut y) = (vec![0.0; 12], vec![0.0; 12]);
        // Any order: document 5 is document 5.
        let bx = a.doc(5, &mut x);
        b.doc(4, &mut y);
        let by = b.doc(5, &mut y);
        assert_eq!((bx, &x), (by, &y));
        assert_eq!(a.bucket(5), bx);
        assert_ne!(Space::new(8, 12).doc(5, &mut y), 1000);
        // The written floats parse back to the same f32s.
        let (mut line, mut scratch) = (Vec::new(), Vec::new());
        write_doc(&a, 5, &mut scratch, &mut line);
        let doc: serde_json::Value = serde_json::from_slice(&line).unwrap();
        assert_eq!(doc["id"], 5);
        assert_eq!(doc["bucket"], bx);
        let back: Vec<f32> = doc["v"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f.as_f64().unwrap() as f32)
            .collect();
        assert_eq!(back, x);
        // Buckets spread over 0..1000; queries differ from documents.
        let buckets: Vec<u32> = (0..2000).map(|i| a.bucket(i)).collect();
        let under_500 = buckets.iter().filter(|b| **b < 500).count();
        assert!((900..1100).contains(&under_500), "{under_500}");
        a.query(5, &mut y);
        assert_ne!(x, y);
    }
}
