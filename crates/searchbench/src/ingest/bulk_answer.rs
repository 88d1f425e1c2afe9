//! A bulk answer's items, read from its bytes whatever its `errors` flag says: one status per
//! document, in request order. A server that says `"errors":false` and sends fewer items than
//! documents (or none, or garbage, or an answer cut off) must not get its documents counted
//! as indexed, so the flag is never trusted alone.
//!
//! The hot path stays cheap: no DOM. The scanner walks the bytes once; the common item
//! (`{"index":{"status":201}}`, as `filter_path` trims it) is matched as a whole, anything else
//! is read field by field, and only a failed item's `error` object is parsed with serde_json,
//! for its reason.

use super::response::{error_reason, snippet};

/// What a 2xx bulk answer said of its documents. Only failed items are kept: the common
/// answer, every item a success, costs a count and no allocation.
#[derive(Debug, Default)]
pub struct BulkAnswer {
    pub took: Option<u64>,
    /// Complete items read, in request order, up to the first problem: item `k` is document
    /// `k`'s.
    pub items: usize,
    /// The items among them whose status is not 2xx, with their position.
    pub failed: Vec<(usize, ItemResult)>,
    /// Why the item list stops early or is missing, when it does: not a bulk answer, no
    /// `items`, `items` not an array, cut off, an item without a status.
    pub problem: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ItemResult {
    pub status: u16,
    /// `type: reason` of the item's error, when it failed.
    pub reason: Option<String>,
}

impl ItemResult {
    pub fn is_ok(&self) -> bool {
        (200..300).contains(&self.status)
    }
}

impl BulkAnswer {
    /// The answer as it decides documents `0..docs`, and why the documents after its items
    /// have none (`None` when every document has one). More items than documents cannot be
    /// matched to documents at all: then no document has an item.
    pub fn for_docs(mut self, docs: usize) -> (Self, Option<String>) {
        let n = self.items;
        if n == docs {
            return (self, None);
        }
        let count = format!("the answer has {n} items for {docs} documents");
        if n > docs {
            self.items = 0;
            self.failed.clear();
            return (self, Some(count));
        }
        let why = match self.problem.take() {
            Some(problem) => format!("{count}: {problem}"),
            None => count,
        };
        (self, Some(why))
    }
}

/// A document of a bulk request that was not taken, or why none past some point has an answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Untaken {
    /// The document's position in the request, when an item names it.
    pub position: Option<usize>,
    pub why: String,
}

/// Whether every one of `docs` documents in the request answered by `body` was taken, read
/// item by item whatever the `errors` flag says: the one rule of every writer that needs all
/// its documents (publishing, a scenario's fill, a vector load). The first refused item (its
/// position, status and reason) or why items are missing, when not.
pub fn all_taken(body: &[u8], docs: usize) -> Result<(), Untaken> {
    let (answer, missing) = read(body).for_docs(docs);
    if let Some((position, item)) = answer.failed.into_iter().next() {
        return Err(Untaken {
            position: Some(position),
            why: format!(
                "status {}: {}",
                item.status,
                item.reason.as_deref().unwrap_or("no reason given")
            ),
        });
    }
    match missing.or(answer.problem) {
        Some(why) => Err(Untaken {
            position: None,
            why,
        }),
        None => Ok(()),
    }
}

/// The most an item can take in an answer, error included (an untrimmed success is ~200
/// bytes, an error with its causes ~1 KB); an error quoting the document is covered by
/// [`bound`]'s allowance for the request itself.
pub const ITEM_CEILING: u64 = 4 << 10;

/// Room for what is not items: `took`, `errors`, or a whole-request error with its causes.
pub const ANSWER_BASE: u64 = 1 << 20;

/// The largest answer a bulk request of `docs` documents and `request_bytes` bytes
/// (uncompressed) can legitimately get; a larger one is refused unread. For 1,000 documents
/// of 1 KB: ~6 MB.
pub fn bound(docs: usize, request_bytes: usize) -> u64 {
    ANSWER_BASE + docs as u64 * ITEM_CEILING + request_bytes as u64
}

/// Reads a 2xx bulk answer. Never fails: what could not be read is [`BulkAnswer::problem`].
pub fn read(body: &[u8]) -> BulkAnswer {
    let mut answer = BulkAnswer::default();
    let mut scan = Scan { b: body, at: 0 };
    if let Err(problem) = scan.answer(&mut answer) {
        answer.problem = Some(problem);
    }
    answer
}

/// A cursor over the answer's bytes.
struct Scan<'a> {
    b: &'a [u8],
    at: usize,
}

/// The common items, matched whole: what `filter_path=items.*.status` leaves of a success.
const FAST_PREFIXES: [&[u8]; 2] = [b"{\"index\":{\"status\":", b"{\"create\":{\"status\":"];

impl<'a> Scan<'a> {
    fn answer(&mut self, out: &mut BulkAnswer) -> Result<(), String> {
        if !self.eat(b'{') {
            return Err(self.fault("not a bulk answer (not a JSON object)", 0));
        }
        let mut items = false;
        if !self.eat(b'}') {
            loop {
                let key = self.string().ok_or_else(|| self.fault("bad key", 0))?;
                self.expect(b':', 0)?;
                match key {
                    b"took" => {
                        out.took = self.number();
                        if out.took.is_none() {
                            self.skip_value().ok_or_else(|| self.fault("bad took", 0))?;
                        }
                    }
                    b"items" => {
                        items = true;
                        self.items(out)?;
                    }
                    _ => self
                        .skip_value()
                        .ok_or_else(|| self.fault("bad value", out.items))?,
                }
                if self.eat(b',') {
                    continue;
                }
                if self.eat(b'}') {
                    break;
                }
                return Err(self.fault("expected ',' or '}'", out.items));
            }
        }
        if items {
            Ok(())
        } else {
            Err(format!(
                "no `items` in the answer, which starts with {:?}",
                snippet(self.b)
            ))
        }
    }

    fn items(&mut self, out: &mut BulkAnswer) -> Result<(), String> {
        if !self.eat(b'[') {
            return Err(format!(
                "`items` is not an array, at byte {}: {:?}",
                self.at,
                snippet(&self.b[self.at.min(self.b.len())..])
            ));
        }
        if self.eat(b']') {
            return Ok(());
        }
        // The count in a local: the loop runs once per document.
        let mut n = out.items;
        let result = loop {
            let item = match self.item() {
                Ok(item) => item,
                Err(what) => break Err(self.fault(what, n)),
            };
            if !item.is_ok() {
                out.failed.push((n, item));
            }
            n += 1;
            if self.eat(b',') {
                continue;
            }
            if self.eat(b']') {
                break Ok(());
            }
            break Err(self.fault("expected ',' or ']' after an item", n));
        };
        out.items = n;
        result
    }

    /// One item: `{"<action>":{"status":N, "error":{...}, ...}}`.
    fn item(&mut self) -> Result<ItemResult, &'static str> {
        self.ws();
        if let Some(status) = self.fast_item() {
            return Ok(ItemResult {
                status,
                reason: None,
            });
        }
        if !self.eat(b'{') {
            return Err("an item that is not an object");
        }
        self.string().ok_or("an item without an action")?;
        if !self.eat(b':') || !self.eat(b'{') {
            return Err("an item whose action is not an object");
        }
        let mut status = None;
        let mut error = None;
        if !self.eat(b'}') {
            loop {
                let key = self.string().ok_or("bad key in an item")?;
                if !self.eat(b':') {
                    return Err("bad key in an item");
                }
                match key {
                    b"status" => {
                        let n = self
                            .number()
                            .ok_or("an item whose status is not a number")?;
                        status = Some(u16::try_from(n).map_err(|_| "an item status out of range")?);
                    }
                    b"error" => {
                        self.ws();
                        let from = self.at;
                        self.skip_value().ok_or("bad error in an item")?;
                        error = Some(&self.b[from..self.at]);
                    }
                    _ => {
                        self.skip_value().ok_or("bad value in an item")?;
                    }
                }
                if self.eat(b',') {
                    continue;
                }
                if self.eat(b'}') {
                    break;
                }
                return Err("an item cut off or malformed");
            }
        }
        if !self.eat(b'}') {
            return Err("an item with more than one action, or cut off");
        }
        let status = status.ok_or("an item without a status")?;
        Ok(ItemResult {
            status,
            reason: error.map(item_reason),
        })
    }

    /// The common item as a whole: a prefix, three digits, `}}`.
    fn fast_item(&mut self) -> Option<u16> {
        let rest = &self.b[self.at..];
        let prefix = FAST_PREFIXES.iter().find(|p| rest.starts_with(p))?;
        let tail = rest.get(prefix.len()..prefix.len() + 5)?;
        if !tail[..3].iter().all(u8::is_ascii_digit) || &tail[3..] != b"}}" {
            return None;
        }
        let status = tail[..3]
            .iter()
            .fold(0u16, |n, d| n * 10 + u16::from(d - b'0'));
        self.at += prefix.len() + 5;
        Some(status)
    }

    fn ws(&mut self) {
        while let Some(b' ' | b'\n' | b'\r' | b'\t') = self.b.get(self.at) {
            self.at += 1;
        }
    }

    fn eat(&mut self, c: u8) -> bool {
        self.ws();
        if self.b.get(self.at) == Some(&c) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, c: u8, items: usize) -> Result<(), String> {
        if self.eat(c) {
            Ok(())
        } else {
            Err(self.fault(&format!("expected {:?}", c as char), items))
        }
    }

    /// A string's raw bytes (escapes left as they are), after its closing quote.
    fn string(&mut self) -> Option<&'a [u8]> {
        if !self.eat(b'"') {
            return None;
        }
        let from = self.at;
        loop {
            self.at += memchr::memchr2(b'"', b'\\', self.b.get(self.at..)?)?;
            if self.b[self.at] == b'\\' {
                self.at += 2;
                continue;
            }
            let s = &self.b[from..self.at];
            self.at += 1;
            return Some(s);
        }
    }

    /// A non-negative integer; `None` (and nothing consumed) for anything else.
    fn number(&mut self) -> Option<u64> {
        self.ws();
        let digits = self.b[self.at..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        let after = self.b.get(self.at + digits);
        if digits == 0 || matches!(after, Some(b'.' | b'e' | b'E')) {
            return None;
        }
        let mut n: u64 = 0;
        for d in &self.b[self.at..self.at + digits] {
            n = n.checked_mul(10)?.checked_add(u64::from(d - b'0'))?;
        }
        self.at += digits;
        Some(n)
    }

    /// Steps over one value of any kind. Lenient about what it skips (it is not an item):
    /// `None` only when the answer ends inside it.
    fn skip_value(&mut self) -> Option<()> {
        self.ws();
        match *self.b.get(self.at)? {
            b'"' => self.string().map(drop),
            b'{' | b'[' => {
                let mut depth = 0usize;
                loop {
                    match *self.b.get(self.at)? {
                        b'"' => {
                            self.string()?;
                            continue;
                        }
                        b'{' | b'[' => depth += 1,
                        b'}' | b']' => {
                            depth -= 1;
                            if depth == 0 {
                                self.at += 1;
                                return Some(());
                            }
                        }
                        _ => {}
                    }
                    self.at += 1;
                }
            }
            _ => {
                let from = self.at;
                while let Some(c) = self.b.get(self.at) {
                    if matches!(c, b',' | b'}' | b']' | b' ' | b'\n' | b'\r' | b'\t') {
                        break;
                    }
                    self.at += 1;
                }
                (self.at > from && self.at < self.b.len()).then_some(())
            }
        }
    }

    /// What went wrong where: an answer cut off is said so; anything else names the byte.
    fn fault(&self, what: &str, items: usize) -> String {
        if self.at >= self.b.len() {
            return format!(
                "the answer is cut off after {items} complete items ({} bytes)",
                self.b.len()
            );
        }
        let near = &self.b[self.at..];
        format!(
            "{what} at byte {} ({:?}); the answer starts with {:?}",
            self.at,
            String::from_utf8_lossy(&near[..near.len().min(40)]),
            snippet(self.b)
        )
    }
}

/// The reason of a failed item's `error` value (an object or a string).
fn item_reason(raw: &[u8]) -> String {
    match serde_json::from_slice::<serde_json::Value>(raw) {
        Ok(v) => error_reason(&v),
        Err(_) => snippet(raw),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_document_must_be_taken_whatever_the_flag_says() {
        let lying = br#"{"errors":false,"items":[{"index":{"status":201}},{"index":{"status":400,"error":{"type":"mapper_parsing_exception","reason":"bad"}}}]}"#;
        let untaken = all_taken(lying, 2).unwrap_err();
        assert_eq!(untaken.position, Some(1));
        assert!(untaken.why.contains("400") && untaken.why.contains("mapper_parsing_exception"));
        let short = br#"{"errors":false,"items":[{"index":{"status":201}}]}"#;
        let untaken = all_taken(short, 2).unwrap_err();
        assert_eq!(untaken.position, None);
        assert!(untaken.why.contains("1 items for 2"), "{}", untaken.why);
        assert!(all_taken(b"nonsense", 0).is_err());
        assert!(all_taken(br#"{"errors":false,"items":[{"index":{"status":201}}]}"#, 1).is_ok());
    }

    /// How many items, the failed ones' statuses, and the problem.
    fn statuses(body: &[u8]) -> (usize, Vec<u16>, Option<String>) {
        let a = read(body);
        let failed = a.failed.iter().map(|(_, i)| i.status).collect();
        (a.items, failed, a.problem)
    }

    #[test]
    fn the_trimmed_answer_of_a_real_engine_is_read_item_by_item() {
        let body = br#"{"took":7,"errors":false,"items":[{"index":{"status":201}},{"index":{"status":200}},{"create":{"status":201}}]}"#;
        let a = read(body);
        assert_eq!(a.took, Some(7));
        assert_eq!(a.problem, None);
        assert_eq!(a.items, 3);
        assert!(a.failed.is_empty());
    }

    #[test]
    fn failed_items_carry_their_reason_in_request_order() {
        let body = br#"{"took":3,"errors":true,"items":[
            {"index":{"status":201}},
            {"index":{"status":400,"error":{"type":"mapper_parsing_exception","reason":"failed to parse field [n]","caused_by":{"type":"illegal_argument_exception","reason":"For input string: \"x}]\""}}}},
            {"index":{"_index":"i","_id":"3","status":429,"error":{"type":"es_rejected_execution_exception","reason":"busy"}}}]}"#;
        let a = read(body);
        assert_eq!(a.problem, None);
        assert_eq!(a.took, Some(3));
        assert_eq!(a.items, 3);
        assert_eq!(a.failed.len(), 2);
        assert_eq!((a.failed[0].0, a.failed[0].1.status), (1, 400));
        let r = a.failed[0].1.reason.as_deref().unwrap();
        assert!(r.starts_with("mapper_parsing_exception: failed to parse field [n]"));
        assert!(r.contains("caused by illegal_argument_exception"), "{r}");
        assert_eq!((a.failed[1].0, a.failed[1].1.status), (2, 429));
        assert_eq!(
            a.failed[1].1.reason.as_deref(),
            Some("es_rejected_execution_exception: busy")
        );
    }

    #[test]
    fn untrimmed_and_pretty_answers_are_read_too() {
        let body = b"{\n  \"took\" : 5,\n  \"errors\" : false,\n  \"items\" : [ {\n \"index\" : {\n \"_index\" : \"x\", \"_id\" : \"a\\\"b\", \"_version\" : 1, \"result\" : \"created\", \"_shards\" : { \"total\" : 2, \"successful\" : 1, \"failed\" : 0 }, \"_seq_no\" : 0, \"_primary_term\" : 1, \"status\" : 201 } } ]\n}";
        assert_eq!(statuses(body), (1, vec![], None));
        assert_eq!(read(body).took, Some(5));
    }

    #[test]
    fn errors_false_is_not_trusted_without_its_items() {
        let ok = br#"{"index":{"status":201}}"#;
        let three = format!(
            r#"{{"took":1,"errors":false,"items":[{}]}}"#,
            [ok; 3]
                .map(|b| String::from_utf8_lossy(b).into_owned())
                .join(",")
        );
        let (a, why) = read(three.as_bytes()).for_docs(500);
        assert_eq!(a.items, 3);
        assert_eq!(
            why.as_deref(),
            Some("the answer has 3 items for 500 documents")
        );

        let (a, why) = read(br#"{"took":1,"errors":false}"#).for_docs(500);
        assert_eq!(a.items, 0);
        assert!(why.unwrap().contains("no `items`"));

        let (a, why) = read(br#"{"took":1,"errors":false,"items":"garbage"}"#).for_docs(2);
        assert_eq!(a.items, 0);
        assert!(why.unwrap().contains("`items` is not an array"));

        let (a, why) = read(br#"{"took":1,"errors":false,"items":["#).for_docs(2);
        assert_eq!(a.items, 0);
        assert!(why.unwrap().contains("cut off after 0 complete items"));

        let cut = br#"{"errors":false,"items":[{"index":{"status":201}},{"index":{"status":20"#;
        let (a, why) = read(cut).for_docs(2);
        assert_eq!(a.items, 1);
        assert!(why.unwrap().contains("cut off after 1 complete items"));

        let (a, why) = read(b"<html>502 Bad Gateway</html>").for_docs(1);
        assert_eq!(a.items, 0);
        let why = why.unwrap();
        assert!(
            why.contains("not a bulk answer") && why.contains("<html>502"),
            "{why}"
        );
    }

    #[test]
    fn more_items_than_documents_decide_none_of_them() {
        let body = br#"{"items":[{"index":{"status":201}},{"index":{"status":400}}]}"#;
        let (a, why) = read(body).for_docs(1);
        assert_eq!(a.items, 0);
        assert!(a.failed.is_empty());
        assert_eq!(
            why.as_deref(),
            Some("the answer has 2 items for 1 documents")
        );
    }

    #[test]
    fn malformed_items_stop_the_list_where_they_are() {
        for (body, expect) in [
            (
                &br#"{"items":[{"index":{"status":201}},{"index":{}}]}"#[..],
                "without a status",
            ),
            (
                br#"{"items":[{"index":{"status":201}},{"index":{"status":"x"}}]}"#,
                "not a number",
            ),
            (
                br#"{"items":[{"index":{"status":201}},{"index":{"status":70000}}]}"#,
                "out of range",
            ),
            (
                br#"{"items":[{"index":{"status":201}},7]}"#,
                "not an object",
            ),
            (
                br#"{"items":[{"index":{"status":201}}}"#,
                "expected ',' or ']'",
            ),
        ] {
            let (n, _, why) = statuses(body);
            assert_eq!(n, 1, "{body:?}");
            let why = why.unwrap();
            assert!(why.contains(expect), "{why}");
        }
    }

    #[test]
    fn the_fast_path_and_the_field_path_agree() {
        // Each item both ways: a statuses list read through the whole-item match equals the
        // one read field by field (spaces defeat the fast path).
        let statuses_list = [201u16, 200, 409, 429, 503, 400, 201];
        let fast: Vec<String> = statuses_list
            .iter()
            .map(|s| format!(r#"{{"index":{{"status":{s}}}}}"#))
            .collect();
        let slow: Vec<String> = statuses_list
            .iter()
            .map(|s| format!(r#"{{ "index" : {{ "status" : {s} }} }}"#))
            .collect();
        let a = read(format!(r#"{{"items":[{}]}}"#, fast.join(",")).as_bytes());
        let b = read(format!(r#"{{"items":[{}]}}"#, slow.join(" , ")).as_bytes());
        assert_eq!(a.problem, None);
        assert_eq!(b.problem, None);
        assert_eq!((a.items, &a.failed), (b.items, &b.failed));
        assert_eq!(a.items, statuses_list.len());
        assert_eq!(a.failed.len(), 4);
    }
}
