//! The results store: every run, ingest and query result kept in one embedded SQLite file.
//!
//! A run is written in three steps so that nothing is lost when the process dies:
//! [`Store::begin_run`] inserts a row marked `running` (configuration, tool version, machine,
//! seed, tags), [`Store::append_timeline`] adds per-second rows while the run goes, and
//! [`Store::finish_run`] stores the result and marks the run with the state it earned (see
//! [`outcome_of`]: `complete`, `interrupted` by a signal, or `failed` when an error stopped it
//! or a check failed); [`Store::fail_run`] marks it `failed`. The database is in WAL mode and every step is its
//! own transaction: a run that was killed halfway leaves a readable file in which that run is
//! still `running`; [`RunRow::state`] then reports it as `incomplete`.
//!
//! Results are stored as JSON (the serialised `IngestReport` or `QueryResult`), so the store
//! does not need to change when a result type grows a field. The schema is versioned with
//! `PRAGMA user_version`; [`MIGRATIONS`] are applied in order when a file is opened.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rusqlite::{params, Connection, OpenFlags, OptionalExtension};
use serde::Serialize;
use serde_json::Value;

use crate::measure::{Machine, SerializedHistogram};

mod annotations;
mod import;
mod outcome;
mod parts;
mod phases;
mod prune;
mod published;
pub use prune::Pruned;
pub use published::{publish_word, PublishState};
mod records;
mod rows;
pub(crate) mod secrets;
mod studies;
mod telemetry;
mod upgrade;
mod whole;

pub use annotations::{Annotation, AnnotationError, NewAnnotation};
pub use import::Imported;
use outcome::engine_of;
pub use outcome::{outcome_of, seed_in, workload_name};
pub use parts::{EachPart, Parts};
pub use phases::{merge_phases, PhaseMeasurements, LOAD, QUERY};
pub use records::{
    parse_tag, Filter, Kind, NewRun, RunId, RunRow, State, SYNTHESIZED, SYNTHESIZED_CORPUS,
};
use rows::read_row;
pub use studies::Study;
pub use whole::WholeRun;

/// The environment variable that overrides the default store location.
pub const STORE_ENV: &str = "SEARCHBENCH_STORE";

/// Schema migrations; migration `i` brings `user_version` from `i` to `i + 1`.
pub const MIGRATIONS: &[&str] = &[
    // 1: runs and their tags.
    "CREATE TABLE runs (
        id            TEXT PRIMARY KEY,
        kind          TEXT NOT NULL,
        workload      TEXT NOT NULL,
        engine        TEXT,
        status        TEXT NOT NULL,
        started_unix  INTEGER NOT NULL,
        finished_unix INTEGER,
        tool_version  TEXT NOT NULL,
        seed          INTEGER,
        pid           INTEGER,
        machine       TEXT NOT NULL,
        config        TEXT NOT NULL,
        result        TEXT,
        error         TEXT
    );
    CREATE TABLE tags (
        run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        key    TEXT NOT NULL,
        value  TEXT NOT NULL,
        PRIMARY KEY (run_id, key)
    );",
    // 2: the per-second timeline, streamed in while a run goes; lookups by time.
    "CREATE TABLE timeline (
        run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        second INTEGER NOT NULL,
        data   TEXT NOT NULL,
        PRIMARY KEY (run_id, second)
    );
    CREATE INDEX runs_started ON runs(started_unix);
    CREATE INDEX tags_key_value ON tags(key, value);",
    // 3: the run's HDR histograms in their portable V2 + deflate encoding.
    "CREATE TABLE histograms (
        run_id   TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        name     TEXT NOT NULL,
        unit     TEXT NOT NULL,
        encoding TEXT NOT NULL,
        data     BLOB NOT NULL,
        PRIMARY KEY (run_id, name)
    );",
    // 4: telemetry, one row per node per sample, streamed in while a run goes.
    "CREATE TABLE telemetry (
        run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        second INTEGER NOT NULL,
        node   TEXT NOT NULL,
        data   TEXT NOT NULL,
        PRIMARY KEY (run_id, second, node)
    );",
    // 5: studies (a sweep, a saturation search): the whole result under the id its runs
    // are tagged with.
    "CREATE TABLE studies (
        id           TEXT NOT NULL,
        kind         TEXT NOT NULL,
        started_unix INTEGER NOT NULL,
        result       TEXT NOT NULL,
        PRIMARY KEY (kind, id)
    );",
    // 6: what each phase of a run measured, kept as the phase ends (counts, counts per
    // wall-clock second as JSON; its HDR histograms beside), in the order phases ended.
    "CREATE TABLE phase_measurements (
        run_id  TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        seq     INTEGER NOT NULL,
        phase   TEXT NOT NULL,
        counts  TEXT NOT NULL,
        seconds TEXT NOT NULL,
        PRIMARY KEY (run_id, seq)
    );
    CREATE TABLE phase_histograms (
        run_id   TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        seq      INTEGER NOT NULL,
        name     TEXT NOT NULL,
        unit     TEXT NOT NULL,
        encoding TEXT NOT NULL,
        data     BLOB NOT NULL,
        PRIMARY KEY (run_id, seq, name)
    );",
    // 7: where each run was published (`results publish`), in which state: a run is
    // pending at a destination until it was published there as it now is.
    "CREATE TABLE published (
        run_id         TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        destination    TEXT NOT NULL,
        state          TEXT NOT NULL,
        published_unix INTEGER NOT NULL,
        PRIMARY KEY (run_id, destination)
    );",
    // 8: what the instruments kept around each phase's step (`measure::Kept` by instrument
    // name, as JSON): their figures and detail, on the step's first phase. Runs kept before
    // have none.
    "ALTER TABLE phase_measurements ADD COLUMN kept TEXT NOT NULL DEFAULT '{}';",
    // 9: what each phase kept that merges by the least or the most of the parts
    // (`measure::Bounds`, as JSON: when a load began, when it ended). Runs kept before have
    // none.
    "ALTER TABLE phase_measurements ADD COLUMN bounds TEXT NOT NULL DEFAULT '{}';",
    // 10: a publish that failed, kept beside where the run went: the error and when, so the
    // run is pending there (`results list` says so) and the next publish to the destination
    // sends it. `state` '' is a run never published there.
    "ALTER TABLE published ADD COLUMN error TEXT;
     ALTER TABLE published ADD COLUMN tried_unix INTEGER;",
    // 11: what the team wrote beside the runs (`searchbench annotate`): a note on the runs
    // with these tags, or on a moment; every chart of a history marks it.
    "CREATE TABLE annotations (
        id           INTEGER PRIMARY KEY,
        text         TEXT NOT NULL,
        tags         TEXT NOT NULL DEFAULT '{}',
        at_unix      INTEGER,
        created_unix INTEGER NOT NULL
    );",
    // 12: what each phase kept timed on the wall clock (`measure::Timed` by name, as JSON:
    // when each index was made, with its documents), lists that merge by union. Runs kept
    // before have none.
    "ALTER TABLE phase_measurements ADD COLUMN timed TEXT NOT NULL DEFAULT '{}';",
    // 13: notes found by their text and tags (a note read back is kept once: found first).
    "CREATE INDEX annotations_by_text ON annotations (text, tags);",
];

/// How [`Store::put_histograms`] encodes: HdrHistogram's V2 format, deflated.
pub const HISTOGRAM_ENCODING: &str = "hdr-v2-deflate";

/// A stored histogram decoded back into its count and percentiles (in its own unit), or the
/// reason it could not be decoded.
pub fn histogram_summary(h: &SerializedHistogram) -> Value {
    let mut v = serde_json::json!({
        "name": h.name,
        "unit": h.unit,
        "encoding": HISTOGRAM_ENCODING,
        "bytes": h.v2_deflate.len(),
    });
    match h.decode() {
        Ok(d) => {
            v["count"] = d.len().into();
            if !d.is_empty() {
                // A percentile only with enough values to mean something (the rule `results show` prints).
                for (k, q, min) in [
                    ("p50", 0.5, 1),
                    ("p90", 0.9, 10),
                    ("p99", 0.99, 100),
                    ("p99.9", 0.999, 1000),
                ] {
                    if d.len() >= min {
                        v[k] = d.value_at_quantile(q).into();
                    }
                }
                v["max"] = d.max().into();
            }
        }
        Err(e) => v["error"] = e.into(),
    }
    v
}

/// Where a running row keeps its owner's mark (inside its `machine`, read out as the row is
/// read: see [`crate::os::owner_alive`]).
const OWNER_MARK: &str = "owner_mark";

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("results store {}: {source}", path.display())]
    Open {
        path: PathBuf,
        source: rusqlite::Error,
    },
    #[error("results store {}: cannot create its folder: {source}", path.display())]
    Folder {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("results store {}: schema version {found} is newer than this searchbench knows ({known}); use a newer searchbench or another --store", path.display())]
    NewerSchema {
        path: PathBuf,
        found: i64,
        known: i64,
    },
    /// A reading command was pointed at a store that does not exist (a typo in --store
    /// would otherwise read as an empty store).
    #[error("no results store at {} (a run, an ingest or a query creates it; check --store or SEARCHBENCH_STORE)", path.display())]
    Missing { path: PathBuf },
    #[error("no home folder to put the results store in: set XDG_DATA_HOME, HOME or --store")]
    NoHome,
    /// Another program's SQLite file: nothing is changed in it.
    #[error("{} is not a searchbench results store but another SQLite database (tables: {}); nothing was changed in it. Point --store or SEARCHBENCH_STORE at a results store, or at a new path to create one", path.display(), tables.join(", "))]
    Foreign { path: PathBuf, tables: Vec<String> },
    /// An empty file where a reading command expected a store.
    #[error("{} is empty, not a results store yet (a run, an ingest or a query makes it one)", path.display())]
    Empty { path: PathBuf },
    #[error("results store {}: cannot bring its schema to version {to}: {reason}", path.display())]
    Migration {
        path: PathBuf,
        to: usize,
        reason: String,
    },
    #[error("results store {}: schema version {found} is older than this searchbench reads ({known}) and it cannot be written to upgrade it; open it once with write access (any command that saves a run)", path.display())]
    OlderSchema {
        path: PathBuf,
        found: i64,
        known: i64,
    },
    #[error("results store {}: its folder cannot be written and {} holds changes only a writable open can apply; copy the folder somewhere writable and read it there", path.display(), wal.display())]
    ReadOnlyWal { path: PathBuf, wal: PathBuf },
    /// A measuring command's store cannot take its run: said before anything is measured.
    #[error("results store {} cannot be written ({reason}); fix that, give another --store, or pass --no-store to measure without saving", path.display())]
    NotWritable { path: PathBuf, reason: String },
    #[error("results store: {0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error("results store: stored JSON: {0}")]
    Json(#[from] serde_json::Error),
    #[error("no run {0:?} in the store (see `searchbench results list`)")]
    NotFound(String),
    #[error("run id {prefix:?} is ambiguous: it matches {}", matches.join(", "))]
    Ambiguous {
        prefix: String,
        matches: Vec<String>,
    },
    #[error("no complete run has the tags {0} (see `searchbench results list --tag k=v`)")]
    NoTagMatch(String),
    /// A run split in parts (`--part`) whose group cannot be seen as one run.
    #[error("group {0}")]
    NotMerged(String),
    #[error("run {id} is {state}, not complete: its figures are partial. Compare it anyway with --include-partial")]
    NotComplete { id: String, state: &'static str },
    #[error("bad tag {0:?}: write key=value (key: letters, digits, '_', '-', '.')")]
    BadTag(String),
    /// A stored row that cannot be read back (or written) as what it should hold.
    #[error("results store: {0}")]
    Corrupt(String),
}

pub type Result<T, E = StoreError> = std::result::Result<T, E>;

/// `$SEARCHBENCH_STORE`, else `$XDG_DATA_HOME/searchbench/results.db`, else
/// `~/.local/share/searchbench/results.db`.
pub fn default_path() -> Result<PathBuf> {
    if let Some(p) = std::env::var_os(STORE_ENV).filter(|p| !p.is_empty()) {
        return Ok(PathBuf::from(p));
    }
    let base = match std::env::var_os("XDG_DATA_HOME").filter(|p| !p.is_empty()) {
        Some(d) => PathBuf::from(d),
        None => {
            let home = std::env::var_os("HOME")
                .filter(|p| !p.is_empty())
                .ok_or(StoreError::NoHome)?;
            PathBuf::from(home).join(".local").join("share")
        }
    };
    Ok(base.join("searchbench").join("results.db"))
}

/// Keeps (or replaces) a run's tags, inside the caller's transaction.
fn insert_tags<'a>(
    tx: &rusqlite::Transaction<'_>,
    id: &str,
    tags: impl IntoIterator<Item = (&'a str, &'a str)>,
) -> Result<()> {
    for (k, v) in tags {
        // A tag is text like any other a run keeps (see `secrets`).
        let (k, v) = (secrets::redacted_text(k), secrets::redacted_text(v));
        tx.execute(
            "INSERT OR REPLACE INTO tags (run_id, key, value) VALUES (?1, ?2, ?3)",
            params![id, k, v],
        )?;
    }
    Ok(())
}

/// A histogram read back from a row of `name, unit, data`.
fn histogram_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<SerializedHistogram> {
    Ok(SerializedHistogram {
        name: r.get(0)?,
        unit: r.get(1)?,
        v2_deflate: r.get(2)?,
    })
}

/// The rows of the run `id` read back: one that does not read as its column's type (bad
/// bytes, a file edited by hand) names the run and `what` it held, so the views of that run
/// say which run is damaged (and a site leaves its page out) rather than fail unnamed.
fn rows_of<T>(
    id: &RunId,
    what: &str,
    rows: impl Iterator<Item = rusqlite::Result<T>>,
) -> Result<Vec<T>> {
    use rusqlite::Error::{FromSqlConversionFailure, InvalidColumnType, Utf8Error};
    rows.map(|r| {
        r.map_err(|e| match e {
            FromSqlConversionFailure(..) | InvalidColumnType(..) | Utf8Error(_) => {
                StoreError::Corrupt(format!("run {}: {what} does not read ({e})", id.0))
            }
            e => e.into(),
        })
    })
    .collect()
}

/// Keeps (or replaces) a run's histograms, inside the caller's transaction.
fn insert_histograms(
    tx: &rusqlite::Transaction<'_>,
    id: &str,
    histograms: &[SerializedHistogram],
) -> Result<()> {
    let mut stmt = tx.prepare_cached(
        "INSERT OR REPLACE INTO histograms (run_id, name, unit, encoding, data)
         VALUES (?1, ?2, ?3, ?4, ?5)",
    )?;
    for h in histograms {
        stmt.execute(params![
            id,
            h.name,
            h.unit,
            HISTOGRAM_ENCODING,
            h.v2_deflate
        ])?;
    }
    Ok(())
}

fn now_unix() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// Whether `s` is a run id as the store makes them: eight lowercase hex digits (a merged
/// group's as a run's). So no run id is a prefix of another, and what is read back from
/// elsewhere under any other id is not a run this tool wrote.
pub fn is_run_id(s: &str) -> bool {
    s.len() == 8
        && s.bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

fn new_id() -> String {
    use std::hash::{BuildHasher, Hasher};
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    h.write_u128(nanos);
    h.write_u32(std::process::id());
    h.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    format!("{:08x}", h.finish() as u32)
}

/// Attempts at opening a store another process holds locked beyond the busy timeout.
const OPEN_RETRIES: u64 = 5;

fn is_busy(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
    )
}

/// The tables the migrations make (read from them, so a new one is ours the moment it is
/// written there): a file holding others is not ours.
fn our_tables() -> impl Iterator<Item = &'static str> {
    MIGRATIONS.iter().flat_map(|m| {
        m.split("CREATE TABLE ")
            .skip(1)
            .filter_map(|rest| rest.split_whitespace().next())
    })
}

/// What an SQLite file is, read before anything is changed in it.
enum Identity {
    /// A results store at this schema version.
    Ours { version: i64 },
    /// No tables yet: a new file (or an empty one) becomes a store when written.
    Empty,
    /// Another program's database.
    Foreign { tables: Vec<String> },
}

/// Reads the version and the tables in one read transaction: another process may be making
/// the tables of a new store meanwhile, and the two must come from the same snapshot.
fn identify(conn: &Connection) -> rusqlite::Result<Identity> {
    conn.execute_batch("BEGIN DEFERRED")?;
    let identity = identify_in(conn);
    let end = conn.execute_batch("COMMIT");
    let identity = identity?;
    end?;
    Ok(identity)
}

fn identify_in(conn: &Connection) -> rusqlite::Result<Identity> {
    let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    let tables = conn
        .prepare(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'
             ORDER BY name",
        )?
        .query_map([], |r| r.get::<_, String>(0))?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    let known = MIGRATIONS.len() as i64;
    let ours = tables.iter().all(|t| our_tables().any(|o| o == t));
    Ok(match () {
        () if tables.is_empty() && version == 0 => Identity::Empty,
        // A newer searchbench may have added tables: its version says so (refused later).
        () if version >= 1 && tables.iter().any(|t| t == "runs") && (ours || version > known) => {
            Identity::Ours { version }
        }
        () => Identity::Foreign { tables },
    })
}

/// The first table names of a foreign file, for its error.
fn some(mut tables: Vec<String>) -> Vec<String> {
    if tables.len() > 5 {
        let more = tables.len() - 5;
        tables.truncate(5);
        tables.push(format!("and {more} more"));
    }
    if tables.is_empty() {
        tables.push("none, but a schema version of its own".into());
    }
    tables
}

/// An open results store.
#[derive(Debug)]
pub struct Store {
    conn: Connection,
    path: PathBuf,
}

impl Store {
    /// Opens (creating if needed) the store at [`default_path`].
    pub fn open_default() -> Result<Store> {
        Store::open(default_path()?)
    }

    /// Opens the store at `path` for reading: one that does not exist is an error, not a new
    /// empty store.
    pub fn open_existing(path: impl AsRef<Path>) -> Result<Store> {
        let path = path.as_ref();
        if !path.exists() {
            return Err(StoreError::Missing {
                path: path.to_path_buf(),
            });
        }
        Store::open(path)
    }

    /// Opens the store at `path` only to read it, changing nothing in the file or its folder:
    /// it must exist and be a store; a read-only folder is fine (without a write-ahead log
    /// to apply). An older schema is brought up to date when the file can be written.
    pub fn open_read(path: impl AsRef<Path>) -> Result<Store> {
        let path = path.as_ref().to_path_buf();
        if !path.exists() {
            return Err(StoreError::Missing { path });
        }
        let open_err = |source| StoreError::Open {
            path: path.clone(),
            source,
        };
        let read_only = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(&path, read_only).map_err(open_err)?;
        conn.busy_timeout(Duration::from_secs(10))
            .map_err(open_err)?;
        let identity = match identify(&conn) {
            Ok(i) => (i, conn),
            // A WAL file in a folder we cannot write: no `-shm` can be made to read through.
            Err(e)
                if e.sqlite_error_code() == Some(rusqlite::ErrorCode::ReadOnly)
                    || e.sqlite_error_code() == Some(rusqlite::ErrorCode::CannotOpen) =>
            {
                drop(conn);
                let conn = Store::open_immutable(&path)?;
                (identify(&conn).map_err(open_err)?, conn)
            }
            Err(e) => return Err(open_err(e)),
        };
        match identity {
            (Identity::Foreign { tables }, _) => Err(StoreError::Foreign {
                path,
                tables: some(tables),
            }),
            (Identity::Empty, _) => Err(StoreError::Empty { path }),
            (Identity::Ours { version }, conn) if version == MIGRATIONS.len() as i64 => {
                Ok(Store { conn, path })
            }
            (Identity::Ours { version }, conn) => {
                drop(conn);
                let known = MIGRATIONS.len() as i64;
                if version > known {
                    return Err(StoreError::NewerSchema {
                        path,
                        found: version,
                        known,
                    });
                }
                Store::open(&path).map_err(|_| StoreError::OlderSchema {
                    path: path.clone(),
                    found: version,
                    known,
                })
            }
        }
    }

    /// The file as it is on disk, for a folder where no `-shm` can be made; refused when a
    /// non-empty `-wal` holds changes (read this way, they would be silently left out).
    fn open_immutable(path: &Path) -> Result<Connection> {
        let mut wal = path.as_os_str().to_owned();
        wal.push("-wal");
        let wal = PathBuf::from(wal);
        if std::fs::metadata(&wal).is_ok_and(|m| m.len() > 0) {
            return Err(StoreError::ReadOnlyWal {
                path: path.to_path_buf(),
                wal,
            });
        }
        let absolute = std::fs::canonicalize(path).map_err(|source| StoreError::Folder {
            path: path.to_path_buf(),
            source,
        })?;
        let mut uri = url::Url::from_file_path(&absolute).map_err(|()| StoreError::Folder {
            path: path.to_path_buf(),
            source: std::io::Error::other("not an absolute path"),
        })?;
        uri.set_query(Some("mode=ro&immutable=1"));
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
            | OpenFlags::SQLITE_OPEN_NO_MUTEX
            | OpenFlags::SQLITE_OPEN_URI;
        Connection::open_with_flags(uri.as_str(), flags).map_err(|source| StoreError::Open {
            path: path.to_path_buf(),
            source,
        })
    }

    /// Fails unless a run can be written here: checked by measuring commands before they
    /// measure anything (SQLite opens a file it may not write read-only, without a word).
    pub fn check_writable(&self) -> Result<()> {
        let read_only = self
            .conn
            .is_readonly(rusqlite::DatabaseName::Main)
            .unwrap_or(true);
        if read_only {
            return Err(StoreError::NotWritable {
                path: self.path.clone(),
                reason: "the file is read-only".into(),
            });
        }
        Ok(())
    }

    /// Opens (creating if needed) the store at `path` and brings its schema up to date.
    pub fn open(path: impl AsRef<Path>) -> Result<Store> {
        let path = path.as_ref().to_path_buf();
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|source| StoreError::Folder {
                path: path.clone(),
                source,
            })?;
        }
        let open_err = |source| StoreError::Open {
            path: path.clone(),
            source,
        };
        // Several processes may open a new file at once (parallel runs): each step waits on
        // the others (busy timeout) and a step that still finds the file locked is retried.
        let mut attempt = 0;
        loop {
            match Store::open_once(&path) {
                Err(StoreError::Open { source, .. } | StoreError::Sqlite(source))
                    if is_busy(&source) && attempt < OPEN_RETRIES =>
                {
                    attempt += 1;
                    std::thread::sleep(Duration::from_millis(20 * attempt));
                }
                Err(StoreError::Sqlite(source)) => return Err(open_err(source)),
                other => return other,
            }
        }
    }

    fn open_once(path: &Path) -> Result<Store> {
        let open_err = |source| StoreError::Open {
            path: path.to_path_buf(),
            source,
        };
        let conn = Connection::open(path).map_err(open_err)?;
        conn.busy_timeout(Duration::from_secs(10))
            .map_err(open_err)?;
        // Before anything changes the file (WAL, our tables): another program's database is
        // left as it is.
        if let Identity::Foreign { tables } = identify(&conn).map_err(open_err)? {
            return Err(StoreError::Foreign {
                path: path.to_path_buf(),
                tables: some(tables),
            });
        }
        conn.query_row("PRAGMA journal_mode=WAL", [], |r| r.get::<_, String>(0))
            .map_err(open_err)?;
        conn.execute_batch("PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;")
            .map_err(open_err)?;
        let mut store = Store {
            conn,
            path: path.to_path_buf(),
        };
        store.migrate()?;
        Ok(store)
    }

    /// A store in memory, gone when dropped: runs read back from the team's cluster
    /// (`--from URL`) are put here for the views that read a store. `home` is the store it
    /// stands in for, where what a view writes beside the store goes (`reports/`).
    pub fn in_memory(home: PathBuf) -> Result<Store> {
        let open_err = |source| StoreError::Open {
            path: home.clone(),
            source,
        };
        let conn = Connection::open_in_memory().map_err(open_err)?;
        conn.execute_batch("PRAGMA foreign_keys=ON;")
            .map_err(open_err)?;
        let mut store = Store { conn, path: home };
        store.migrate()?;
        Ok(store)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The schema version of the open file.
    pub fn schema_version(&self) -> Result<i64> {
        Ok(self
            .conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))?)
    }

    /// Brings the schema up to date. The version is read again inside a write transaction
    /// (`BEGIN IMMEDIATE`), so of several processes opening a new file at once exactly one
    /// creates the tables and the others see its version.
    fn migrate(&mut self) -> Result<()> {
        let known = MIGRATIONS.len() as i64;
        if self.schema_version()? == known {
            return Ok(());
        }
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let found: i64 = tx.query_row("PRAGMA user_version", [], |r| r.get(0))?;
        if found > known {
            return Err(StoreError::NewerSchema {
                path: self.path.clone(),
                found,
                known,
            });
        }
        for (i, sql) in MIGRATIONS.iter().enumerate().skip(found.max(0) as usize) {
            // SQLite's own message, without the whole batch of SQL rusqlite would quote.
            tx.execute_batch(sql).map_err(|e| StoreError::Migration {
                path: self.path.clone(),
                to: i + 1,
                reason: match e {
                    rusqlite::Error::SqlInputError { msg, .. } => msg,
                    e => e.to_string(),
                },
            })?;
            tx.execute_batch(&format!("PRAGMA user_version = {}", i + 1))?;
        }
        tx.commit()?;
        Ok(())
    }

    /// A transaction that writes, begun as a writer: one that read first and then wrote is not
    /// waited for while another process writes (a live run's second, another run's end), and
    /// fails at once with "database is locked".
    pub(crate) fn write_transaction(&self) -> Result<rusqlite::Transaction<'_>> {
        Ok(rusqlite::Transaction::new_unchecked(
            &self.conn,
            rusqlite::TransactionBehavior::Immediate,
        )?)
    }

    /// Records that a run has started; it stays `running` until finished or failed. Beside
    /// its process's pid, the process's mark (see [`crate::os::process_mark`]): a copy of the
    /// store read on another host, or in another container, or once the pid is reused, does
    /// not take another process for the run's.
    pub fn begin_run(&self, run: &NewRun) -> Result<RunId> {
        let mut machine = serde_json::to_value(Machine::detect())?;
        if let (Some(m), Some(mark)) = (
            machine.as_object_mut(),
            crate::os::process_mark(std::process::id()),
        ) {
            m.insert(OWNER_MARK.into(), mark.into());
        }
        let machine = serde_json::to_string(&machine)?;
        let config = serde_json::to_string(&secrets::redacted(&run.config))?;
        let mut id = new_id();
        for _ in 0..16 {
            let taken: Option<i64> = self
                .conn
                .query_row("SELECT 1 FROM runs WHERE id = ?1", [&id], |r| r.get(0))
                .optional()?;
            if taken.is_none() {
                break;
            }
            id = new_id();
        }
        let tx = self.write_transaction()?;
        tx.execute(
            "INSERT INTO runs (id, kind, workload, engine, status, started_unix, tool_version,
                               seed, pid, machine, config)
             VALUES (?1, ?2, ?3, ?4, 'running', ?5, ?6, ?7, ?8, ?9, ?10)",
            params![
                id,
                run.kind.name(),
                run.workload,
                run.engine,
                now_unix() as i64,
                env!("CARGO_PKG_VERSION"),
                run.seed.map(|s| s as i64),
                std::process::id(),
                machine,
                config,
            ],
        )?;
        insert_tags(
            &tx,
            &id,
            run.tags.iter().map(|(k, v)| (k.as_str(), v.as_str())),
        )?;
        tx.commit()?;
        Ok(RunId(id))
    }

    /// Adds (or replaces) per-second rows while a run goes. Each item must serialise to an
    /// object with a numeric `second` field (like `measure::TimelineRow`); others are skipped.
    pub fn append_timeline<T: Serialize>(&self, id: &RunId, seconds: &[T]) -> Result<usize> {
        let tx = self.write_transaction()?;
        let mut n = 0;
        {
            let mut stmt = tx.prepare_cached(
                "INSERT OR REPLACE INTO timeline (run_id, second, data) VALUES (?1, ?2, ?3)",
            )?;
            for s in seconds {
                let v = serde_json::to_value(s)?;
                let Some(second) = v.get("second").and_then(Value::as_u64) else {
                    continue;
                };
                stmt.execute(params![id.0, second as i64, serde_json::to_string(&v)?])?;
                n += 1;
            }
        }
        tx.commit()?;
        Ok(n)
    }

    /// Keeps (or replaces) the run's histograms.
    pub fn put_histograms(&self, id: &RunId, histograms: &[SerializedHistogram]) -> Result<()> {
        let tx = self.write_transaction()?;
        insert_histograms(&tx, &id.0, histograms)?;
        tx.commit()?;
        Ok(())
    }

    /// The run's histograms, in the order they were stored under their names.
    pub fn histograms(&self, id: &RunId) -> Result<Vec<SerializedHistogram>> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT name, unit, data FROM histograms
             WHERE run_id = ?1 AND encoding = ?2 ORDER BY rowid",
        )?;
        let rows = stmt.query_map(params![id.0, HISTOGRAM_ENCODING], histogram_row)?;
        rows_of(id, "a stored histogram", rows)
    }

    /// Stores the result and marks the run `complete`. A `timeline` array in the result
    /// replaces the streamed rows (the final one is authoritative).
    pub fn finish_run<T: Serialize>(&self, id: &RunId, result: &T) -> Result<()> {
        self.end_run(id, &serde_json::to_value(result)?, None)
    }

    /// Marks the run `failed`, keeping the partial result when there is one.
    pub fn fail_run(&self, id: &RunId, error: &str, partial: Option<&Value>) -> Result<()> {
        self.end_run(id, partial.unwrap_or(&Value::Null), Some(error))
    }

    fn end_run(&self, id: &RunId, result: &Value, error: Option<&str>) -> Result<()> {
        let engine = engine_of(result);
        let (status, own_error) = outcome_of(result);
        let error = error
            .map(str::to_string)
            .or(own_error)
            .map(|e| secrets::redacted_text(&e));
        let status = match status {
            State::Complete if error.is_some() => State::Failed,
            s => s,
        }
        .name();
        let stored = (!result.is_null())
            .then(|| serde_json::to_string(&secrets::redacted(result)))
            .transpose()?;
        // Read and written in one transaction that takes the write lock first.
        let tx = self.write_transaction()?;
        // The machine the result says it was measured on wins over the one that stored it,
        // with the engine build the run reached, which only the store was told.
        let machine = match result.get("machine").filter(|m| m.is_object()) {
            Some(said) => {
                let mut said = said.clone();
                let stored: Option<String> = tx
                    .query_row("SELECT machine FROM runs WHERE id = ?1", [&id.0], |r| {
                        r.get(0)
                    })
                    .optional()?;
                let stored: Value = stored
                    .and_then(|s| serde_json::from_str(&s).ok())
                    .unwrap_or_default();
                use crate::measure::provenance::Provenance;
                if let Some(engine) = Provenance::read(&stored).engine {
                    if Provenance::read(&said).engine.is_none() {
                        put_engine(&mut said, serde_json::to_value(engine)?);
                    }
                }
                Some(serde_json::to_string(&said)?)
            }
            None => None,
        };
        let changed = tx.execute(
            "UPDATE runs SET status = ?2, finished_unix = ?3, result = ?4, error = ?5,
                             engine = COALESCE(engine, ?6), machine = COALESCE(?7, machine)
             WHERE id = ?1",
            params![
                id.0,
                status,
                now_unix() as i64,
                stored,
                error,
                engine,
                machine
            ],
        )?;
        if changed == 0 {
            return Err(StoreError::NotFound(id.0.clone()));
        }
        if let Some(timeline) = result.get("timeline").and_then(Value::as_array) {
            tx.execute("DELETE FROM timeline WHERE run_id = ?1", [&id.0])?;
            let mut stmt = tx.prepare_cached(
                "INSERT OR REPLACE INTO timeline (run_id, second, data) VALUES (?1, ?2, ?3)",
            )?;
            for s in timeline {
                if let Some(second) = s.get("second").and_then(Value::as_u64) {
                    stmt.execute(params![id.0, second as i64, serde_json::to_string(s)?])?;
                }
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// Keeps the engine build a run reached in its provenance (inside its machine): told once
    /// the cluster answered, so a run killed later still says which build it measured.
    pub fn set_engine(
        &self,
        id: &RunId,
        engine: &crate::measure::provenance::Engine,
    ) -> Result<()> {
        let tx = self.write_transaction()?;
        let stored: String = tx
            .query_row("SELECT machine FROM runs WHERE id = ?1", [&id.0], |r| {
                r.get(0)
            })
            .optional()?
            .ok_or_else(|| StoreError::NotFound(id.0.clone()))?;
        let mut machine: Value = serde_json::from_str(&stored)?;
        put_engine(&mut machine, serde_json::to_value(engine)?);
        tx.execute(
            "UPDATE runs SET machine = ?2 WHERE id = ?1",
            params![id.0, serde_json::to_string(&machine)?],
        )?;
        tx.commit()?;
        Ok(())
    }

    /// Forgets a run entirely: one refused for bad usage measured nothing worth keeping.
    pub fn discard_run(&self, id: &RunId) -> Result<()> {
        self.conn
            .execute("DELETE FROM runs WHERE id = ?1", [&id.0])?;
        Ok(())
    }

    /// Begin + finish in one go, for a result that already exists.
    pub fn save<T: Serialize>(&self, run: &NewRun, result: &T) -> Result<RunId> {
        let id = self.begin_run(run)?;
        self.finish_run(&id, result)?;
        Ok(id)
    }

    /// Runs matching `filter`, newest first.
    pub fn list(&self, filter: &Filter) -> Result<Vec<RunRow>> {
        let mut stmt = self.conn.prepare(
            "SELECT id, kind, workload, engine, status, started_unix, finished_unix, tool_version,
                    seed, pid, machine, config, error, result
             FROM runs ORDER BY started_unix DESC, rowid DESC",
        )?;
        let rows = stmt.query_map([], read_row)?;
        let mut out = Vec::new();
        for row in rows {
            let mut row = row?.into_row()?;
            row.tags = self.tags(&row.id)?;
            if filter.matches(&row) {
                out.push(row);
                if filter.limit.is_some_and(|l| out.len() >= l) {
                    break;
                }
            }
        }
        Ok(out)
    }

    /// The run whose id is `id_or_prefix` (a unique prefix is enough).
    pub fn get(&self, id_or_prefix: &str) -> Result<RunRow> {
        let prefix = id_or_prefix.trim().to_ascii_lowercase();
        if prefix.is_empty() || !prefix.chars().all(|c| c.is_ascii_hexdigit()) {
            return Err(StoreError::NotFound(id_or_prefix.into()));
        }
        let mut stmt = self.conn.prepare(
            "SELECT id, kind, workload, engine, status, started_unix, finished_unix, tool_version,
                    seed, pid, machine, config, error, result
             FROM runs WHERE id LIKE ?1 || '%' ORDER BY started_unix DESC LIMIT 11",
        )?;
        let mut found = stmt
            .query_map([&prefix], read_row)?
            .collect::<Result<Vec<_>, _>>()?;
        match found.len() {
            0 => Err(StoreError::NotFound(id_or_prefix.into())),
            1 => {
                let mut row = found.remove(0).into_row()?;
                row.tags = self.tags(&row.id)?;
                Ok(row)
            }
            _ => Err(StoreError::Ambiguous {
                prefix: id_or_prefix.into(),
                matches: found.into_iter().map(|r| r.id).collect(),
            }),
        }
    }

    /// A run id (or unique prefix) gives that run; `k=v[,k2=v2]` gives every complete run
    /// with those tags (oldest first), a group of repeated runs.
    pub fn select(&self, selector: &str) -> Result<Vec<RunRow>> {
        self.select_with(selector, false)
    }

    /// [`Store::select`]; with `include_partial` a tag group also takes runs that are not
    /// `complete` (interrupted, failed, incomplete).
    pub fn select_with(&self, selector: &str, include_partial: bool) -> Result<Vec<RunRow>> {
        if !selector.contains('=') {
            return Ok(vec![self.get(selector)?]);
        }
        let tags = selector
            .split(',')
            .filter(|s| !s.trim().is_empty())
            .map(parse_tag)
            .collect::<Result<Vec<_>>>()?;
        let mut runs = self.list(&Filter {
            tags,
            complete_only: !include_partial,
            ..Default::default()
        })?;
        if runs.is_empty() {
            return Err(StoreError::NoTagMatch(selector.into()));
        }
        runs.reverse();
        Ok(runs)
    }

    /// The stored per-second rows of a run, in order.
    pub fn timeline(&self, id: &RunId) -> Result<Vec<Value>> {
        self.by_second(
            "SELECT data, second FROM timeline WHERE run_id = ?1 ORDER BY second",
            id,
            "its timeline's second",
        )
    }

    /// The JSON rows `sql` selects (`data, second`) for the run `id`: one that does not read
    /// (bad bytes in one second of one run) is named, `what` and its second.
    fn by_second(&self, sql: &str, id: &RunId, what: &str) -> Result<Vec<Value>> {
        let mut stmt = self.conn.prepare_cached(sql)?;
        let rows = stmt.query_map([&id.0], |r| {
            Ok((r.get::<_, i64>(1)?, r.get_ref(0)?.as_bytes()?.to_vec()))
        })?;
        let mut out = Vec::new();
        for r in rows {
            let (second, data) = r?;
            out.push(
                serde_json::from_slice(&data).map_err(|e| {
                    StoreError::Corrupt(format!("run {}: {what} {second}: {e}", id.0))
                })?,
            );
        }
        Ok(out)
    }

    fn tags(&self, id: &RunId) -> Result<BTreeMap<String, String>> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT key, value FROM tags WHERE run_id = ?1")?;
        let rows = stmt.query_map([&id.0], |r| {
            // A tag is shown as text whatever bytes it holds (one not UTF-8 replaced).
            let text = |i: usize| -> rusqlite::Result<String> {
                let bytes = r.get_ref(i)?.as_bytes_or_null()?.unwrap_or_default();
                Ok(secrets::redacted_text(&String::from_utf8_lossy(bytes)))
            };
            Ok((text(0)?, text(1)?))
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }
}

/// Sets `provenance.engine` in a stored machine (an object; anything else is made one).
fn put_engine(machine: &mut Value, engine: Value) {
    if !machine.is_object() {
        *machine = Value::Object(Default::default());
    }
    let provenance = &mut machine["provenance"];
    if !provenance.is_object() {
        *provenance = Value::Object(Default::default());
    }
    provenance["engine"] = engine;
}

#[cfg(test)]
mod tests {
    #[test]
    fn our_tables_are_every_table_the_migrations_make() {
        let ours: Vec<&str> = our_tables().collect();
        for t in [
            "runs",
            "tags",
            "timeline",
            "histograms",
            "telemetry",
            "studies",
        ] {
            assert!(ours.contains(&t), "{t} in {ours:?}");
        }
        assert!(ours.contains(&"phase_measurements") && ours.contains(&"phase_histograms"));
        assert!(ours
            .iter()
            .all(|t| t.chars().all(|c| c.is_ascii_lowercase() || c == '_')));
    }

    use super::*;

    #[test]
    fn tags_parse_and_refuse_junk() {
        assert_eq!(
            parse_tag("branch=main").unwrap(),
            ("branch".into(), "main".into())
        );
        assert_eq!(parse_tag("a.b-c=x=y").unwrap().1, "x=y");
        assert!(parse_tag("noequals").is_err());
        assert!(parse_tag("=v").is_err());
        assert!(parse_tag("sp ace=v").is_err());
    }

    #[test]
    fn workload_names_come_out_of_corpus_descriptions() {
        assert_eq!(
            workload_name("transactions (seed 1, 100000 rows)"),
            "transactions"
        );
        assert_eq!(workload_name("cluster-metrics"), "cluster-metrics");
        assert_eq!(
            workload_name("CSV file a.csv (transactions mapping)"),
            "CSV file a.csv (transactions mapping)"
        );
        assert_eq!(seed_in("logs (seed 7, 1000 docs)"), Some(7));
        assert_eq!(seed_in("NDJSON file x"), None);
    }

    #[test]
    fn ids_are_eight_hex() {
        let a = new_id();
        assert_eq!(a.len(), 8);
        assert!(a.chars().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, new_id());
    }
}
