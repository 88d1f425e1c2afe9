//! The corpus as the ANN benchmarks' `bigann` files, the data sets opensearch-benchmark's
//! `vectorsearch` workload reads (its `bulk-vector-data-set` and `vector-search` operations,
//! format `bigann`): the same vectors, queries and exact neighbours searchbench measures with,
//! laid down locally for a tool that would otherwise download them.
//!
//! - `base.fbin` and `queries.fbin`: a header of two little-endian `u32` (rows, dimensions),
//!   then the rows' `f32` components, little-endian, row after row.
//! - `neighbors.bin`: a header of two `u32` (queries, K), then each query's K nearest
//!   document ids (`u32`, the row numbers of `base.fbin`, which are the documents' ids), then
//!   their L2 distances (`f32`), in the same order.

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use super::space::Space;
use super::truth::{nearest, Corpus};

/// The neighbours kept per query (opensearch-benchmark's `query_k` in its own parameter
/// files), or every document when there are fewer.
pub const K: usize = 100;

/// The files written, and what they hold.
#[derive(Debug, Clone)]
pub struct DataSet {
    pub base: PathBuf,
    pub queries: PathBuf,
    pub neighbors: PathBuf,
    pub docs: usize,
    pub query_count: usize,
    pub k: usize,
    pub bytes: u64,
}

/// Writes documents `0..docs` of `space`, its first `queries` query vectors and their exact
/// neighbours into `dir` (made if missing). Each file is written beside itself and renamed,
/// so an interrupted run leaves no file cut short.
pub fn write(dir: &Path, space: &Space, docs: u64, queries: usize) -> std::io::Result<DataSet> {
    let too_many = |what: &str| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("{what} is over the u32 a bigann header holds"),
        )
    };
    let rows = u32::try_from(docs).map_err(|_| too_many("--docs"))?;
    let dims = u32::try_from(space.dims).map_err(|_| too_many("--dims"))?;
    let nq = u32::try_from(queries).map_err(|_| too_many("the query count"))?;
    std::fs::create_dir_all(dir)?;
    let corpus = Corpus::generate(space, docs);
    let query_vectors = space.queries(queries);
    let k = K.min(corpus.len());
    let ids = nearest(&corpus, &query_vectors, k, None);

    let base = dir.join("base.fbin");
    let mut bytes = write_file(&base, |out| {
        header(out, rows, dims)?;
        floats(out, &corpus.vectors)
    })?;
    let queries_path = dir.join("queries.fbin");
    bytes += write_file(&queries_path, |out| {
        header(out, nq, dims)?;
        floats(out, &query_vectors)
    })?;
    let neighbors = dir.join("neighbors.bin");
    let d = space.dims.max(1);
    bytes += write_file(&neighbors, |out| {
        header(out, nq, k as u32)?;
        for row in &ids {
            for &id in row {
                out.write_all(&id.to_le_bytes())?;
            }
        }
        for (j, row) in ids.iter().enumerate() {
            let q = &query_vectors[j * d..(j + 1) * d];
            for &id in row {
                let v = &corpus.vectors[id as usize * d..(id as usize + 1) * d];
                let l2 = q
                    .iter()
                    .zip(v)
                    .map(|(a, b)| (a - b) * (a - b))
                    .sum::<f32>()
                    .sqrt();
                out.write_all(&l2.to_le_bytes())?;
            }
        }
        Ok(())
    })?;
    Ok(DataSet {
        base,
        queries: queries_path,
        neighbors,
        docs: corpus.len(),
        query_count: queries,
        k,
        bytes,
    })
}

fn header(out: &mut dyn Write, rows: u32, cols: u32) -> std::io::Result<()> {
    out.write_all(&rows.to_le_bytes())?;
    out.write_all(&cols.to_le_bytes())
}

fn floats(out: &mut dyn Write, values: &[f32]) -> std::io::Result<()> {
    for v in values {
        out.write_all(&v.to_le_bytes())?;
    }
    Ok(())
}

/// Writes `path` through `fill` into `path.partial`, then renames it; the bytes written.
fn write_file(
    path: &Path,
    fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> std::io::Result<u64> {
    let mut partial = path.as_os_str().to_owned();
    partial.push(".partial");
    let partial = PathBuf::from(partial);
    let file = std::fs::File::create(&partial)?;
    let mut out = BufWriter::with_capacity(1 << 20, file);
    let filled = fill(&mut out).and_then(|()| out.flush());
    if let Err(e) = filled {
        drop(out);
        let _ = std::fs::remove_file(&partial);
        return Err(e);
    }
    drop(out);
    let bytes = std::fs::metadata(&partial)?.len();
    std::fs::rename(&partial, path)?;
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u32_at(b: &[u8], at: usize) -> u32 {
        u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
    }

    fn f32_at(b: &[u8], at: usize) -> f32 {
        f32::from_le_bytes(b[at..at + 4].try_into().unwrap())
    }

    #[test]
    fn the_files_hold_the_corpus_and_its_exact_neighbours() {
        let dir = tempfile::tempdir().unwrap();
        let space = Space::new(4, 6);
        let set = write(dir.path(), &space, 150, 7).unwrap();
        assert_eq!((set.docs, set.query_count, set.k), (150, 7, 100));
        let base = std::fs::read(&set.base).unwrap();
        assert_eq!((u32_at(&base, 0), u32_at(&base, 4)), (150, 6));
        assert_eq!(base.len(), 8 + 150 * 6 * 4);
        let mut doc = vec![0.0; 6];
        space.doc(149, &mut doc);
        for (c, want) in doc.iter().enumerate() {
            assert_eq!(f32_at(&base, 8 + (149 * 6 + c) * 4), *want);
        }
        let queries = std::fs::read(&set.queries).unwrap();
        assert_eq!(queries.len(), 8 + 7 * 6 * 4);
        let neighbors = std::fs::read(&set.neighbors).unwrap();
        assert_eq!((u32_at(&neighbors, 0), u32_at(&neighbors, 4)), (7, 100));
        assert_eq!(neighbors.len(), 8 + 2 * 7 * 100 * 4);
        // Against every distance sorted, from the files alone.
        let read = |b: &[u8], row: usize| -> Vec<f32> {
            (0..6).map(|c| f32_at(b, 8 + (row * 6 + c) * 4)).collect()
        };
        for j in 0..7 {
            let q = read(&queries, j);
            let mut all: Vec<(f32, u32)> = (0..150)
                .map(|i| {
                    let v = read(&base, i);
                    let d: f32 = q.iter().zip(&v).map(|(a, b)| (a - b) * (a - b)).sum();
                    (d, i as u32)
                })
                .collect();
            all.sort_by(|a, b| a.partial_cmp(b).unwrap());
            let ids: Vec<u32> = (0..100)
                .map(|n| u32_at(&neighbors, 8 + (j * 100 + n) * 4))
                .collect();
            let want: Vec<u32> = all[..100].iter().map(|x| x.1).collect();
            assert_eq!(ids, want, "query {j}");
            let first = f32_at(&neighbors, 8 + 7 * 100 * 4 + j * 100 * 4);
            assert!((first - all[0].0.sqrt()).abs() < 1e-5);
        }
        assert!(std::fs::read_dir(dir.path()).unwrap().all(|e| !e
            .unwrap()
            .file_name()
            .to_string_lossy()
            .ends_with(".partial")));
    }
}
