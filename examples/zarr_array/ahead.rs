//! Chunk files read ahead of the decoding, on a few reader threads.
//!
//! A read that waits on the disk leaves its core idle: with one read at a time per
//! decoding thread, a cold array reads at the disk's speed for one request, not for
//! several. Reader threads keep a few more reads in flight, of the chunks the walk will ask
//! for next: after each chunk asked, the ones that follow it in the walk's order (with the
//! `rayon` feature the library walks parts of the grid on several threads, each part in
//! order). A chunk not read ahead yet is read by the thread that asks for it, so no ask
//! ever waits on a read that has not started, and at most `WINDOW` chunks are held by the
//! readers, read or being read, whatever the order of the asks.

use std::collections::{HashMap, VecDeque};
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};

/// Reader threads: reads in flight beside the decoding threads' own.
const READERS: usize = 4;
/// Chunks the readers may hold at once, read and not yet asked for, or being read.
const WINDOW: usize = 8;
/// Chunks queued after each one asked for: the window holds the runs ahead of two walking
/// threads (the `rayon` walk's two halves) at once.
const AHEAD: usize = WINDOW / 2;

type Bytes = Result<Option<Vec<u8>>, String>;

/// The chunks a walk will ask for, in the order it asks for them when on one thread, and
/// the reads of them.
pub struct ReadAhead<F> {
    order: Vec<Vec<usize>>,
    place: HashMap<Vec<usize>, usize>,
    read: F,
    state: Mutex<State>,
    changed: Condvar,
}

struct State {
    slots: Vec<Slot>,
    /// Chunks to read next, by their place in `order`.
    queue: VecDeque<usize>,
    /// Chunks being read or read by the readers and not yet asked for.
    held: usize,
    /// The walk is over: the readers stop.
    closed: bool,
}

/// Where a chunk's read is.
enum Slot {
    /// Neither asked for nor queued.
    Waiting,
    /// In the queue of the readers.
    Queued,
    /// Being read by a reader.
    Reading,
    /// Read by a reader, and not yet asked for.
    Ready(Bytes),
    /// Handed to the walk, or read by the thread that asked for it.
    Taken,
}

impl<F> ReadAhead<F>
where
    F: Fn(&[usize]) -> Bytes + Sync,
{
    /// Reads of the chunks `order`, in that order, through `read`.
    pub fn new(order: Vec<Vec<usize>>, read: F) -> Self {
        let place = order
            .iter()
            .enumerate()
            .map(|(i, c)| (c.clone(), i))
            .collect();
        let mut state = State {
            slots: order.iter().map(|_| Slot::Waiting).collect(),
            queue: VecDeque::new(),
            held: 0,
            closed: false,
        };
        state.follow(0, AHEAD);
        ReadAhead {
            order,
            place,
            read,
            state: Mutex::new(state),
            changed: Condvar::new(),
        }
    }

    /// `walk(self)` with the readers reading ahead of it; they stop when it returns.
    pub fn run<R>(&self, walk: impl FnOnce(&Self) -> R) -> R {
        std::thread::scope(|scope| {
            for _ in 0..READERS.min(self.order.len()) {
                scope.spawn(|| self.serve());
            }
            // Closed on the way out, a panic's too, or the scope would wait on the readers.
            let _close = Close(self);
            walk(self)
        })
    }

    /// The bytes of chunk `index`: read ahead, waited for while a reader reads them, or
    /// read here.
    pub fn get(&self, index: &[usize]) -> Bytes {
        let Some(&at) = self.place.get(index) else {
            return (self.read)(index);
        };
        let mut state = self.lock();
        loop {
            match std::mem::replace(&mut state.slots[at], Slot::Taken) {
                Slot::Ready(bytes) => {
                    state.held -= 1;
                    state.follow(at + 1, AHEAD);
                    self.changed.notify_all();
                    return bytes;
                }
                Slot::Reading => {
                    state.slots[at] = Slot::Reading;
                    state = self
                        .changed
                        .wait(state)
                        .unwrap_or_else(PoisonError::into_inner);
                }
                // Not started, or asked for twice: read here.
                Slot::Waiting | Slot::Queued | Slot::Taken => {
                    state.follow(at + 1, AHEAD);
                    self.changed.notify_all();
                    drop(state);
                    return (self.read)(index);
                }
            }
        }
    }

    /// A reader: the queued chunks, while the window has room, until the walk is over.
    fn serve(&self) {
        let mut state = self.lock();
        loop {
            if state.closed {
                return;
            }
            let next = (state.held < WINDOW)
                .then(|| state.queue.pop_front())
                .flatten();
            let Some(at) = next else {
                state = self
                    .changed
                    .wait(state)
                    .unwrap_or_else(PoisonError::into_inner);
                continue;
            };
            // Asked for and read by the walk in the meantime.
            if !matches!(state.slots[at], Slot::Queued) {
                continue;
            }
            state.slots[at] = Slot::Reading;
            state.held += 1;
            drop(state);
            let bytes = (self.read)(&self.order[at]);
            state = self.lock();
            state.slots[at] = Slot::Ready(bytes);
            self.changed.notify_all();
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl State {
    /// Queue the chunks from `from` on, up to `n` of them, that no one has started.
    fn follow(&mut self, from: usize, n: usize) {
        let end = from.saturating_add(n).min(self.slots.len());
        for at in from.min(end)..end {
            if matches!(self.slots[at], Slot::Waiting) {
                self.slots[at] = Slot::Queued;
                self.queue.push_back(at);
            }
        }
    }
}

/// Ends the readers when dropped.
struct Close<'a, F>(&'a ReadAhead<F>);

impl<F> Drop for Close<'_, F> {
    fn drop(&mut self) {
        let mut state = self.0.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.closed = true;
        self.0.changed.notify_all();
    }
}
