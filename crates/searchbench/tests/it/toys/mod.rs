//! A toy instrument and a toy sink, each in a file of its own and named nowhere in `session/`:
//! what a user of the library (or the next instrument, the next sink) adds to every run through
//! `session::Attach`, with nothing else touched.

pub mod instrument;
pub mod sink;

/// What a toy heard, in order, shared between the runs of one test.
pub type Heard = std::sync::Arc<std::sync::Mutex<Vec<String>>>;

/// Everything heard so far (a poisoned lock is a failed test: a toy panicked).
pub fn lines(heard: &Heard) -> Vec<String> {
    heard.lock().expect("a toy panicked").clone()
}
