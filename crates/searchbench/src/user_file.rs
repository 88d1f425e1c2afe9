//! A file a user names (a result, a workload or queries file, a mapping, a truth file), read
//! whole: up to [`MOST`] bytes, so a device or a runaway file (`/dev/zero`) is refused, named,
//! rather than read until memory runs out. A pipe is read as it comes (`<(…)` gives one).

use std::io::Read;
use std::path::Path;

/// The most a file read whole may hold: 256 MiB, far past any result, workload or mapping.
pub const MOST: u64 = 256 << 20;

/// The bytes of `path`, or why not (one past [`MOST`] bytes is `InvalidData`).
pub fn read(path: &Path) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    std::fs::File::open(path)?
        .take(MOST + 1)
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MOST {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("larger than {} MiB: not read whole", MOST >> 20),
        ));
    }
    Ok(bytes)
}

/// The text of `path`, or why not (bytes that are not UTF-8 are `InvalidData`).
pub fn read_to_string(path: &Path) -> std::io::Result<String> {
    String::from_utf8(read(path)?).map_err(|_| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "stream did not contain valid UTF-8",
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A device that never ends is refused once past the bound; a file is read whole.
    #[test]
    fn a_file_past_the_bound_is_refused_and_one_within_read_whole() {
        let err = read(Path::new("/dev/zero")).unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::InvalidData);
        assert!(err.to_string().contains("larger than 256 MiB"), "{err}");
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.json");
        std::fs::write(&file, "{\"a\": 1}").unwrap();
        assert_eq!(read_to_string(&file).unwrap(), "{\"a\": 1}");
        std::fs::write(&file, [0xff, 0xfe]).unwrap();
        assert!(read_to_string(&file).is_err());
    }
}
