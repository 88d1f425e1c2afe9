//! Python's dict, list and str as a track's templates see them. Jinja2 runs in Python: a dict
//! keeps the order its keys were written in, `d.update(...)` and `l.append(...)` change the
//! dict or list in place, `d.copy()` gives one to change, and every `str` method works. minijinja
//! values cannot change, so the dicts and lists a template writes ([`super::literals`]), makes
//! with `dict()` or `| list`, copies, or is given as parameters are [`Dict`] and [`List`]: objects
//! that change in place, method by method as Python's do. Jinja2's `joiner()` and `cycler()`
//! are here too.
//!
//! A dict or list can never come to hold itself (Python prints such a one as `[...]`; a render
//! would recurse without end): adding one that would is an error naming the method.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use indexmap::IndexMap;
use minijinja::value::{from_args, Enumerator, Kwargs, Object, ObjectRepr, Rest, ValueKind};
use minijinja::{Error, ErrorKind, State, Value};

/// A Python dict: insertion order, changed in place.
#[derive(Debug, Default)]
pub struct Dict(Mutex<IndexMap<Value, Value>>);

/// A Python list, changed in place.
#[derive(Debug, Default)]
pub struct List(Mutex<Vec<Value>>);

impl Dict {
    pub fn value(pairs: impl IntoIterator<Item = (Value, Value)>) -> Value {
        Value::from_object(Dict(Mutex::new(pairs.into_iter().collect())))
    }

    fn lock(&self) -> MutexGuard<'_, IndexMap<Value, Value>> {
        // A panic elsewhere while it was held leaves a map that is still whole.
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn pairs(&self) -> Vec<(Value, Value)> {
        self.lock()
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    }

    fn address(&self) -> usize {
        self as *const Self as usize
    }
}

impl List {
    pub fn value(items: impl IntoIterator<Item = Value>) -> Value {
        Value::from_object(List(Mutex::new(items.into_iter().collect())))
    }

    fn lock(&self) -> MutexGuard<'_, Vec<Value>> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn items(&self) -> Vec<Value> {
        self.lock().clone()
    }

    fn address(&self) -> usize {
        self as *const Self as usize
    }

    /// Python's index: from the end when negative; `None` outside the list.
    fn at(&self, index: i64, len: usize) -> Option<usize> {
        let i = if index < 0 { len as i64 + index } else { index };
        (0..len as i64).contains(&i).then_some(i as usize)
    }
}

impl Object for Dict {
    fn repr(self: &Arc<Self>) -> ObjectRepr {
        ObjectRepr::Map
    }

    fn get_value(self: &Arc<Self>, key: &Value) -> Option<Value> {
        self.lock().get(key).cloned()
    }

    fn enumerate(self: &Arc<Self>) -> Enumerator {
        // A snapshot: a loop over a dict the loop changes does not see the change (Python
        // refuses it; neither hangs).
        Enumerator::KeyValueIter(Box::new(self.pairs().into_iter()))
    }

    fn enumerator_len(self: &Arc<Self>) -> Option<usize> {
        Some(self.lock().len())
    }

    fn is_true(self: &Arc<Self>) -> bool {
        !self.lock().is_empty()
    }

    fn call_method(
        self: &Arc<Self>,
        state: &mut State<'_, '_>,
        method: &str,
        args: &[Value],
    ) -> Result<Value, Error> {
        let none = || Value::from(());
        match method {
            "keys" => {
                let () = from_args(args)?;
                Ok(Value::from(self.lock().keys().cloned().collect::<Vec<_>>()))
            }
            "values" => {
                let () = from_args(args)?;
                Ok(Value::from(
                    self.lock().values().cloned().collect::<Vec<_>>(),
                ))
            }
            "items" => {
                let () = from_args(args)?;
                Ok(Value::from(
                    self.pairs()
                        .into_iter()
                        .map(|(k, v)| Value::from(vec![k, v]))
                        .collect::<Vec<_>>(),
                ))
            }
            "get" => {
                let (key, default): (&Value, Option<Value>) = from_args(args)?;
                Ok(self.get_value(key).or(default).unwrap_or_else(none))
            }
            "copy" => {
                let () = from_args(args)?;
                let pairs = self.pairs();
                charge(state, pairs.len())?;
                Ok(Dict::value(pairs))
            }
            "update" => {
                let (other, kwargs): (Option<&Value>, Kwargs) = from_args(args)?;
                let mut new = match other {
                    Some(o) => pairs_of(state, o, "dict.update()")?,
                    None => Vec::new(),
                };
                for k in kwargs.args() {
                    new.push((Value::from(k), kwargs.get::<Value>(k)?));
                }
                for (_, v) in &new {
                    refuse_cycle(state, v, self.address(), "dict.update()")?;
                }
                charge(state, new.len())?;
                self.lock().extend(new);
                Ok(none())
            }
            "setdefault" => {
                let (key, default): (Value, Option<Value>) = from_args(args)?;
                if let Some(v) = self.get_value(&key) {
                    return Ok(v);
                }
                let v = default.unwrap_or_else(none);
                refuse_cycle(state, &v, self.address(), "dict.setdefault()")?;
                self.lock().insert(key, v.clone());
                Ok(v)
            }
            "pop" => {
                let (key, default): (&Value, Option<Value>) = from_args(args)?;
                match (self.lock().shift_remove(key), default) {
                    (Some(v), _) | (None, Some(v)) => Ok(v),
                    (None, None) => Err(invalid(format!("dict.pop(): no key {key:?}"))),
                }
            }
            "popitem" => {
                let () = from_args(args)?;
                match self.lock().pop() {
                    Some((k, v)) => Ok(Value::from(vec![k, v])),
                    None => Err(invalid("dict.popitem(): the dict is empty".into())),
                }
            }
            "clear" => {
                let () = from_args(args)?;
                self.lock().clear();
                Ok(none())
            }
            _ => Err(Error::from(ErrorKind::UnknownMethod)),
        }
    }
}

impl Object for List {
    fn repr(self: &Arc<Self>) -> ObjectRepr {
        ObjectRepr::Seq
    }

    fn get_value(self: &Arc<Self>, key: &Value) -> Option<Value> {
        let index = i64::try_from(key.clone()).ok()?;
        let items = self.lock();
        self.at(index, items.len()).map(|i| items[i].clone())
    }

    fn enumerate(self: &Arc<Self>) -> Enumerator {
        Enumerator::Values(self.items())
    }

    fn enumerator_len(self: &Arc<Self>) -> Option<usize> {
        Some(self.lock().len())
    }

    fn is_true(self: &Arc<Self>) -> bool {
        !self.lock().is_empty()
    }

    fn call_method(
        self: &Arc<Self>,
        state: &mut State<'_, '_>,
        method: &str,
        args: &[Value],
    ) -> Result<Value, Error> {
        let none = || Value::from(());
        match method {
            "append" => {
                let (item,): (Value,) = from_args(args)?;
                refuse_cycle(state, &item, self.address(), "list.append()")?;
                self.lock().push(item);
                Ok(none())
            }
            "extend" => {
                let (more,): (&Value,) = from_args(args)?;
                let more = items_of(state, more, "list.extend()")?;
                for v in &more {
                    refuse_cycle(state, v, self.address(), "list.extend()")?;
                }
                self.lock().extend(more);
                Ok(none())
            }
            "insert" => {
                let (index, item): (i64, Value) = from_args(args)?;
                refuse_cycle(state, &item, self.address(), "list.insert()")?;
                let mut items = self.lock();
                // Python clamps an insert's index to the list.
                let len = items.len() as i64;
                let at = if index < 0 { len + index } else { index }.clamp(0, len);
                items.insert(at as usize, item);
                Ok(none())
            }
            "pop" => {
                let (index,): (Option<i64>,) = from_args(args)?;
                let mut items = self.lock();
                let len = items.len();
                match self.at(index.unwrap_or(-1), len) {
                    Some(i) => Ok(items.remove(i)),
                    None if len == 0 => Err(invalid("list.pop(): the list is empty".into())),
                    None => Err(invalid(format!(
                        "list.pop(): index {} is outside the list of {len}",
                        index.unwrap_or(-1)
                    ))),
                }
            }
            "remove" => {
                let (item,): (&Value,) = from_args(args)?;
                let mut items = self.lock();
                match items.iter().position(|v| v == item) {
                    Some(i) => {
                        items.remove(i);
                        Ok(none())
                    }
                    None => Err(invalid(format!("list.remove(): {item} is not in the list"))),
                }
            }
            "index" => {
                let (item, start, end): (&Value, Option<i64>, Option<i64>) = from_args(args)?;
                index_of(&self.items(), item, start, end)
            }
            "count" => {
                let (item,): (&Value,) = from_args(args)?;
                Ok(Value::from(
                    self.lock().iter().filter(|v| *v == item).count(),
                ))
            }
            "copy" => {
                let () = from_args(args)?;
                let items = self.items();
                charge(state, items.len())?;
                Ok(List::value(items))
            }
            "reverse" => {
                let () = from_args(args)?;
                self.lock().reverse();
                Ok(none())
            }
            "sort" => {
                let (kwargs,): (Kwargs,) = from_args(args)?;
                let reverse = kwargs.get::<Option<bool>>("reverse")?.unwrap_or(false);
                if kwargs.has("key") {
                    return Err(invalid(
                        "list.sort(key=...): a key function cannot be written in a template; \
                         use the sort filter (`l | sort(attribute=...)`)"
                            .into(),
                    ));
                }
                kwargs.assert_all_used()?;
                // Sorted outside the lock: comparing may read the items, which are objects too.
                let mut items = self.items();
                charge(state, items.len())?;
                items.sort();
                if reverse {
                    items.reverse();
                }
                *self.lock() = items;
                Ok(none())
            }
            "clear" => {
                let () = from_args(args)?;
                self.lock().clear();
                Ok(none())
            }
            _ => Err(Error::from(ErrorKind::UnknownMethod)),
        }
    }
}

/// Jinja2's `joiner(sep=", ")`: nothing the first time it is called, `sep` after.
#[derive(Debug)]
struct Joiner {
    sep: String,
    used: AtomicBool,
}

impl Object for Joiner {
    fn call(self: &Arc<Self>, _: &mut State<'_, '_>, args: &[Value]) -> Result<Value, Error> {
        let () = from_args(args)?;
        Ok(Value::from(if self.used.swap(true, Ordering::Relaxed) {
            self.sep.as_str()
        } else {
            ""
        }))
    }
}

pub fn joiner(sep: Option<String>) -> Value {
    Value::from_object(Joiner {
        sep: sep.unwrap_or_else(|| ", ".into()),
        used: AtomicBool::new(false),
    })
}

/// Jinja2's `cycler(*items)`: `next()` gives each item in turn, `current` the next one,
/// `reset()` starts again.
#[derive(Debug)]
struct Cycler {
    items: Vec<Value>,
    at: AtomicUsize,
}

impl Object for Cycler {
    fn get_value(self: &Arc<Self>, key: &Value) -> Option<Value> {
        (key.as_str() == Some("current"))
            .then(|| self.items[self.at.load(Ordering::Relaxed) % self.items.len()].clone())
    }

    fn call_method(
        self: &Arc<Self>,
        _: &mut State<'_, '_>,
        method: &str,
        args: &[Value],
    ) -> Result<Value, Error> {
        let () = from_args(args)?;
        match method {
            "next" => {
                let at = self.at.fetch_add(1, Ordering::Relaxed);
                Ok(self.items[at % self.items.len()].clone())
            }
            "reset" => {
                self.at.store(0, Ordering::Relaxed);
                Ok(Value::from(()))
            }
            _ => Err(Error::from(ErrorKind::UnknownMethod)),
        }
    }
}

pub fn cycler(items: Rest<Value>) -> Result<Value, Error> {
    if items.is_empty() {
        return Err(invalid("cycler(): it needs at least one item".into()));
    }
    Ok(Value::from_object(Cycler {
        items: items.0,
        at: AtomicUsize::new(0),
    }))
}

/// Python's `dict(...)`: from a mapping or a list of pairs, and keyword arguments.
pub fn dict(state: &State, positional: Rest<Value>, kwargs: Kwargs) -> Result<Value, Error> {
    let mut pairs = match positional.as_slice() {
        [] => Vec::new(),
        [one] => pairs_of(state, one, "dict()")?,
        more => {
            return Err(invalid(format!(
                "dict(): it takes at most one argument, not {}",
                more.len()
            )))
        }
    };
    for k in kwargs.args() {
        pairs.push((Value::from(k), kwargs.get::<Value>(k)?));
    }
    Ok(Dict::value(pairs))
}

/// What a template's `{...}` makes: the written dict, as one that changes in place.
pub fn dict_literal(map: Value) -> Result<Value, Error> {
    let pairs = map
        .as_object()
        .and_then(|o| o.try_iter_pairs())
        .ok_or_else(|| invalid("a dict literal that is not a dict".into()))?;
    Ok(Dict::value(pairs))
}

/// What a template's `[...]` makes: the written list, as one that changes in place.
pub fn list_literal(seq: Value) -> Result<Value, Error> {
    Ok(List::value(seq.try_iter()?))
}

/// The `list` filter: a list that changes in place, of what it is given (a string's
/// characters, a dict's keys, a sequence's items).
pub fn list_filter(state: &State, value: Value) -> Result<Value, Error> {
    Ok(List::value(items_of(state, &value, "list")?))
}

/// A track parameter as the template sees it: JSON's objects and arrays as dicts and lists
/// that change in place, in the order they were written.
pub fn from_json(v: &serde_json::Value) -> Value {
    match v {
        serde_json::Value::Object(m) => Dict::value(
            m.iter()
                .map(|(k, v)| (Value::from(k.as_str()), from_json(v))),
        ),
        serde_json::Value::Array(a) => List::value(a.iter().map(from_json)),
        other => Value::from(minijinja::value::Serde(other)),
    }
}

/// The `tojson` filter as Jinja2's: keys sorted (its default `sort_keys=True`), so a dict's
/// order does not change what the track sends.
pub fn tojson(
    state: &State,
    value: &Value,
    indent: Option<Value>,
    kwargs: Kwargs,
) -> Result<Value, Error> {
    let sorted = sorted_keys(state, value, 0)?;
    minijinja::filters::tojson(&sorted, indent, kwargs)
}

/// How deep a value may nest: Python's own recursion limit is about a thousand frames.
const MAX_DEPTH: usize = 500;

fn sorted_keys(state: &State, value: &Value, depth: usize) -> Result<Value, Error> {
    if depth > MAX_DEPTH {
        return Err(invalid(format!(
            "tojson: the value nests deeper than {MAX_DEPTH} levels"
        )));
    }
    match value.kind() {
        ValueKind::Map => {
            let mut pairs = Vec::new();
            for (k, v) in value
                .as_object()
                .and_then(|o| o.try_iter_pairs())
                .into_iter()
                .flatten()
            {
                charge(state, 1)?;
                pairs.push((k, sorted_keys(state, &v, depth + 1)?));
            }
            pairs.sort_by(|a, b| a.0.cmp(&b.0));
            Ok(Value::from_pairs(pairs))
        }
        ValueKind::Seq | ValueKind::Iterable => {
            let mut items = Vec::new();
            for v in value.try_iter()? {
                charge(state, 1)?;
                items.push(sorted_keys(state, &v, depth + 1)?);
            }
            Ok(Value::from(items))
        }
        _ => Ok(value.clone()),
    }
}

/// Python's methods on the values that are not [`Dict`] or [`List`]: every `str` method
/// (minijinja-contrib's, and the rest here), and the dict and list methods that do not change
/// a dict or list given by a filter, a tuple or a range. Set as the environment's callback
/// for methods a value does not have.
pub fn unknown_method(
    state: &mut State,
    value: &Value,
    method: &str,
    args: &[Value],
) -> Result<Value, Error> {
    match value.kind() {
        ValueKind::String => {
            let s = value.as_str().unwrap_or_default();
            if let Some(v) = super::strings::method(s, method, args)? {
                return Ok(v);
            }
            let v =
                minijinja_contrib::pycompat::unknown_method_callback(state, value, method, args)?;
            // Python's split gives a list, which the template may change.
            Ok(match method {
                "split" | "splitlines" => List::value(v.try_iter()?),
                _ => v,
            })
        }
        ValueKind::Map | ValueKind::Seq => match method {
            "copy" => {
                let () = from_args(args)?;
                Ok(if value.kind() == ValueKind::Map {
                    Dict::value(pairs_of(state, value, "copy()")?)
                } else {
                    List::value(items_of(state, value, "copy()")?)
                })
            }
            "index" if value.kind() == ValueKind::Seq => {
                let (item, start, end): (&Value, Option<i64>, Option<i64>) = from_args(args)?;
                index_of(&items_of(state, value, "index()")?, item, start, end)
            }
            "update" | "setdefault" | "pop" | "popitem" | "clear" | "append" | "extend"
            | "insert" | "remove" | "reverse" | "sort" => Err(invalid(format!(
                "{method}() changes a {} in place, and this one is a filter's result, a tuple \
                 or a range, which cannot change; make one that can first \
                 (`x | list`, `dict(x)` or `x.copy()`)",
                if value.kind() == ValueKind::Map {
                    "dict"
                } else {
                    "list"
                }
            ))),
            _ => minijinja_contrib::pycompat::unknown_method_callback(state, value, method, args),
        },
        _ => minijinja_contrib::pycompat::unknown_method_callback(state, value, method, args),
    }
}

fn index_of(
    items: &[Value],
    item: &Value,
    start: Option<i64>,
    end: Option<i64>,
) -> Result<Value, Error> {
    let len = items.len() as i64;
    let bound = |i: i64| if i < 0 { (len + i).max(0) } else { i.min(len) } as usize;
    let (from, to) = (bound(start.unwrap_or(0)), bound(end.unwrap_or(len)));
    items
        .get(from..to.max(from))
        .and_then(|part| part.iter().position(|v| v == item))
        .map(|i| Value::from(from + i))
        .ok_or_else(|| invalid(format!("index(): {item} is not in the list")))
}

/// The pairs of a mapping, or of a sequence of pairs, as Python's `dict(x)` takes them.
fn pairs_of(state: &State, value: &Value, what: &str) -> Result<Vec<(Value, Value)>, Error> {
    if value.kind() == ValueKind::Map {
        let pairs: Vec<_> = value
            .as_object()
            .and_then(|o| o.try_iter_pairs())
            .into_iter()
            .flatten()
            .collect();
        charge(state, pairs.len())?;
        return Ok(pairs);
    }
    let mut pairs = Vec::new();
    for item in value
        .try_iter()
        .map_err(|_| invalid(format!("{what}: {value} is not a dict or a list of pairs")))?
    {
        charge(state, 1)?;
        let kv: Vec<Value> = match item.kind() {
            ValueKind::Seq => item.try_iter()?.collect(),
            _ => Vec::new(),
        };
        match <[Value; 2]>::try_from(kv) {
            Ok([k, v]) => pairs.push((k, v)),
            Err(_) => {
                return Err(invalid(format!(
                    "{what}: {item} is not a pair (a key and a value)"
                )))
            }
        }
    }
    Ok(pairs)
}

/// The items of what Python's `list(x)` takes: a sequence's items, a dict's keys, a string's
/// characters.
fn items_of(state: &State, value: &Value, what: &str) -> Result<Vec<Value>, Error> {
    let items: Vec<Value> = value
        .try_iter()
        .map_err(|_| invalid(format!("{what}: {value} cannot be iterated")))?
        .collect();
    charge(state, items.len())?;
    Ok(items)
}

/// An error if `value` is, or holds, the dict or list at `target`.
fn refuse_cycle(state: &State, value: &Value, target: usize, what: &str) -> Result<(), Error> {
    let mut todo = vec![value.clone()];
    while let Some(v) = todo.pop() {
        let address = v
            .downcast_object_ref::<Dict>()
            .map(Dict::address)
            .or_else(|| v.downcast_object_ref::<List>().map(List::address));
        if address == Some(target) {
            return Err(invalid(format!(
                "{what}: a dict or list cannot be put inside itself"
            )));
        }
        match v.kind() {
            ValueKind::Map => {
                for (_, inner) in v
                    .as_object()
                    .and_then(|o| o.try_iter_pairs())
                    .into_iter()
                    .flatten()
                {
                    // Every value looked at costs: a dict of shared lists nested deep is
                    // stopped by the render's budget, not walked for hours.
                    charge(state, 1)?;
                    todo.push(inner);
                }
            }
            ValueKind::Seq => {
                for inner in v.try_iter()? {
                    charge(state, 1)?;
                    todo.push(inner);
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// One unit of the render's fuel for each of `n` values a method makes or looks at.
fn charge(state: &State, n: usize) -> Result<(), Error> {
    state.consume_fuel(n as u64)
}

fn invalid(why: String) -> Error {
    Error::new(ErrorKind::InvalidOperation, why)
}
