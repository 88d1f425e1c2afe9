//! Several document sources read one after the other (e.g. `--file a.ndjson --file b.ndjson`).

use crate::corpus::{CorpusError, DocSource, Item};

pub struct Chain {
    sources: Vec<Box<dyn DocSource>>,
    at: usize,
    /// Number (in `files()`) of each source's first file.
    first_file: Vec<u32>,
}

impl Chain {
    /// `sources` read one after the other: the one source itself when there is one.
    pub fn of(mut sources: Vec<Box<dyn DocSource>>) -> Box<dyn DocSource> {
        if sources.len() == 1 {
            sources.remove(0)
        } else {
            Box::new(Chain::new(sources))
        }
    }

    pub fn new(sources: Vec<Box<dyn DocSource>>) -> Self {
        let mut n = 0u32;
        let first_file = sources
            .iter()
            .map(|s| {
                let first = n;
                n += s.files().len() as u32;
                first
            })
            .collect();
        Chain {
            sources,
            at: 0,
            first_file,
        }
    }
}

impl DocSource for Chain {
    fn next_into(&mut self, out: &mut Vec<u8>) -> Result<Option<Item>, CorpusError> {
        while let Some(source) = self.sources.get_mut(self.at) {
            match source.next_into(out)? {
                Some(item) => return Ok(Some(item)),
                None => self.at += 1,
            }
        }
        Ok(None)
    }

    fn len_hint(&self) -> Option<u64> {
        self.sources.iter().map(|s| s.len_hint()).sum()
    }

    fn files(&self) -> Vec<String> {
        self.sources.iter().flat_map(|s| s.files()).collect()
    }

    fn origin(&self) -> Option<(u32, u64)> {
        let (file, line) = self.sources.get(self.at)?.origin()?;
        Some((file + self.first_file[self.at], line))
    }

    fn describe(&self) -> String {
        self.sources
            .iter()
            .map(|s| s.describe())
            .collect::<Vec<_>>()
            .join(" + ")
    }
}

/// Makes a source afresh: what [`Looped`] reads again each time its source ends.
pub type Reopen = Box<dyn FnMut() -> Result<Box<dyn DocSource>, CorpusError> + Send>;

/// A source read again from its start each time it ends (Rally's `looped` bulk): endless, so
/// something else (the task's time period) must end the load. A source that yields nothing
/// from its start ends it instead of spinning.
pub struct Looped {
    reopen: Reopen,
    current: Box<dyn DocSource>,
    /// Items the current pass has given.
    given: u64,
}

impl Looped {
    /// `first` read, then what `reopen` makes each time the last pass ends.
    pub fn new(first: Box<dyn DocSource>, reopen: Reopen) -> Self {
        Looped {
            reopen,
            current: first,
            given: 0,
        }
    }
}

impl DocSource for Looped {
    fn next_into(&mut self, out: &mut Vec<u8>) -> Result<Option<Item>, CorpusError> {
        loop {
            match self.current.next_into(out)? {
                Some(item) => {
                    self.given += 1;
                    return Ok(Some(item));
                }
                None if self.given == 0 => return Ok(None),
                None => {
                    self.current = (self.reopen)()?;
                    self.given = 0;
                }
            }
        }
    }

    fn describe(&self) -> String {
        format!("{}, read again each time it ends", self.current.describe())
    }

    fn files(&self) -> Vec<String> {
        self.current.files()
    }

    fn origin(&self) -> Option<(u32, u64)> {
        self.current.origin()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::Counter;

    #[test]
    fn chains_sources_in_order() {
        let mut c = Chain::new(vec![
            Box::new(Counter { n: 2, at: 0 }),
            Box::new(Counter { n: 1, at: 0 }),
        ]);
        assert_eq!(c.len_hint(), Some(3));
        let mut out = Vec::new();
        while c.next_into(&mut out).unwrap().is_some() {
            out.push(b'\n');
        }
        assert_eq!(out, b"{\"n\":0}\n{\"n\":1}\n{\"n\":0}\n");
    }

    #[test]
    fn a_looped_source_starts_again_at_each_end_and_an_empty_one_ends() {
        let three = || Box::new(Counter { n: 3, at: 0 }) as Box<dyn DocSource>;
        let mut looped = Looped::new(three(), Box::new(move || Ok(three())));
        let mut out = Vec::new();
        for _ in 0..8 {
            assert!(matches!(looped.next_into(&mut out), Ok(Some(Item::Doc))));
            out.push(b' ');
        }
        assert_eq!(
            String::from_utf8(out).unwrap(),
            r#"{"n":0} {"n":1} {"n":2} {"n":0} {"n":1} {"n":2} {"n":0} {"n":1} "#
        );
        assert!(looped.describe().ends_with("read again each time it ends"));
        let none = || Box::new(Counter { n: 0, at: 0 }) as Box<dyn DocSource>;
        let mut empty = Looped::new(none(), Box::new(move || Ok(none())));
        assert!(matches!(empty.next_into(&mut Vec::new()), Ok(None)));
    }
}
