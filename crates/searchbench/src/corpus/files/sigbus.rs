//! A guard for mapped input files: reading a page of a mapped file that was cut short under
//! the reader raises SIGBUS, which ends the process with no summary and no failure file. A
//! mapped reader registers its mapping here; if one of its pages faults, the handler puts a
//! page of newlines where the file's page was (so the line being scanned ends at once) and
//! marks the mapping faulted. The reader checks that mark before it hands out a line and
//! stops with an error instead. A SIGBUS at any other address keeps its default action.
//!
//! The handler only reads atomics, makes one `mmap` system call and writes the page it made,
//! all of which are safe in a signal handler.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Once;

/// How many mappings can be guarded at once (one per input file being read).
const SLOTS: usize = 64;

struct Slot {
    /// First byte of the mapping; 0 when the slot is free.
    start: AtomicUsize,
    /// One past its last byte; 0 while the slot is being filled or emptied.
    end: AtomicUsize,
    faulted: AtomicBool,
}

#[allow(clippy::declare_interior_mutable_const)] // each array element is its own slot
const FREE: Slot = Slot {
    start: AtomicUsize::new(0),
    end: AtomicUsize::new(0),
    faulted: AtomicBool::new(false),
};

static GUARDED: [Slot; SLOTS] = [FREE; SLOTS];
static PAGE: AtomicUsize = AtomicUsize::new(4096);
static INSTALL: Once = Once::new();
static INSTALLED: AtomicBool = AtomicBool::new(false);

/// A mapping watched for SIGBUS; unwatched when dropped (drop it before unmapping).
#[derive(Debug)]
pub struct Guard {
    slot: usize,
}

impl Guard {
    /// Watches `[start, start + len)`. `None` when no slot is free or the handler could not
    /// be installed: the mapping is then read unguarded (a truncation may end the process).
    pub fn watch(start: usize, len: usize) -> Option<Guard> {
        install();
        if !INSTALLED.load(Ordering::Acquire) || start == 0 {
            return None;
        }
        let slot = GUARDED.iter().position(|s| {
            s.start
                .compare_exchange(0, start, Ordering::AcqRel, Ordering::Relaxed)
                .is_ok()
        })?;
        GUARDED[slot].faulted.store(false, Ordering::Relaxed);
        GUARDED[slot].end.store(start + len, Ordering::Release);
        Some(Guard { slot })
    }

    /// Whether a page of the mapping faulted (the file was cut short under it): what was
    /// read since the last check may hold the handler's newlines instead of the file's bytes.
    pub fn faulted(&self) -> bool {
        GUARDED[self.slot].faulted.load(Ordering::Acquire)
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        let slot = &GUARDED[self.slot];
        slot.end.store(0, Ordering::Release);
        slot.start.store(0, Ordering::Release);
    }
}

fn install() {
    INSTALL.call_once(|| {
        // SAFETY: sysconf and sigaction with a zeroed, then filled, sigaction struct; the
        // handler is an `extern "C"` function of the right signature for SA_SIGINFO.
        unsafe {
            let page = libc::sysconf(libc::_SC_PAGESIZE);
            if page > 0 {
                PAGE.store(page as usize, Ordering::Relaxed);
            }
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_sigbus as *const () as usize;
            action.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
            libc::sigemptyset(&mut action.sa_mask);
            if libc::sigaction(libc::SIGBUS, &action, std::ptr::null_mut()) == 0 {
                INSTALLED.store(true, Ordering::Release);
            }
        }
    });
}

extern "C" fn on_sigbus(_signal: libc::c_int, info: *mut libc::siginfo_t, _: *mut libc::c_void) {
    // SAFETY: the kernel passes a valid siginfo for a SA_SIGINFO handler; for SIGBUS its
    // address field is the faulting address.
    let addr = unsafe { (*info).si_addr() } as usize;
    let page = PAGE.load(Ordering::Relaxed);
    for slot in &GUARDED {
        let start = slot.start.load(Ordering::Acquire);
        let end = slot.end.load(Ordering::Acquire);
        if start == 0 || addr < start || addr >= end {
            continue;
        }
        let at = addr & !(page - 1);
        // SAFETY: the page lies inside a mapping its reader registered and has not unmapped
        // (it unregisters first); replacing it with an anonymous page of its own is what the
        // reader expects after a fault.
        unsafe {
            let p = libc::mmap(
                at as *mut libc::c_void,
                page,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED,
                -1,
                0,
            );
            if p != libc::MAP_FAILED {
                std::ptr::write_bytes(p.cast::<u8>(), b'\n', page);
                slot.faulted.store(true, Ordering::Release);
                return;
            }
        }
    }
    // Not a guarded mapping (or no page could be made): the default action, as if this
    // handler had never been installed. The faulting access runs again and ends the process.
    // SAFETY: sigaction (safe in a handler) with a zeroed struct: SIG_DFL, no flags.
    unsafe {
        let default: libc::sigaction = std::mem::zeroed();
        libc::sigaction(libc::SIGBUS, &default, std::ptr::null_mut());
    }
}
