//! What an engine's thread was doing, from the frames of a sampled stack: one category per
//! sample, by the table below.
//!
//! A rule matches a stack when any of its frames (`package.Class.method`) contains one of the
//! rule's patterns; the first rule in table order that matches decides. The order is the
//! priority: work nested inside other work is named by the inner work (a date parsed while a
//! document is parsed is date parsing; a document parsed inside a bulk request that came over
//! the network is document parsing, not networking), so the rules for inner work come first.
//! Patterns are written once for both engines: OpenSearch's `org.opensearch.` and
//! Elasticsearch's `org.elasticsearch.` share their package paths below the root.

use serde::{Deserialize, Serialize};

/// Where a CPU sample or an allocated byte went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Category {
    Merges,
    Refresh,
    Translog,
    DateParsing,
    Analysis,
    JsonParsing,
    SearchAndAggregations,
    LuceneIndexing,
    DocumentParsing,
    Networking,
    Other,
}

/// The table: category, then the frame patterns that put a stack in it, in priority order.
pub const RULES: &[(Category, &[&str])] = &[
    (
        Category::Merges,
        &[
            "org.apache.lucene.index.ConcurrentMergeScheduler",
            "org.apache.lucene.index.SegmentMerger",
            "org.apache.lucene.index.IndexWriter.merge",
        ],
    ),
    (
        Category::Refresh,
        &[
            ".index.engine.InternalEngine.refresh",
            "org.apache.lucene.search.ReferenceManager.maybeRefresh",
            "org.apache.lucene.index.DirectoryReader.open",
            "org.apache.lucene.index.IndexWriter.getReader",
        ],
    ),
    (Category::Translog, &[".index.translog."]),
    (
        Category::DateParsing,
        &[
            "java.time.format.",
            ".common.time.",
            ".index.mapper.DateFieldMapper",
            "java.time.temporal.",
        ],
    ),
    (Category::Analysis, &["org.apache.lucene.analysis."]),
    (
        Category::JsonParsing,
        &["com.fasterxml.jackson.", ".xcontent.", ".common.xcontent."],
    ),
    (
        Category::SearchAndAggregations,
        &[
            "org.opensearch.search.",
            "org.elasticsearch.search.",
            "org.apache.lucene.search.",
        ],
    ),
    (
        Category::LuceneIndexing,
        &[
            "org.apache.lucene.index.",
            "org.apache.lucene.codecs.",
            "org.apache.lucene.store.",
            "org.apache.lucene.util.",
        ],
    ),
    (Category::DocumentParsing, &[".index.mapper."]),
    (
        Category::Networking,
        &["io.netty.", ".transport.", ".http.", "sun.nio.ch."],
    ),
];

impl Category {
    /// Every category, in the table's order (`Other` last).
    pub const ALL: [Category; 11] = [
        Category::Merges,
        Category::Refresh,
        Category::Translog,
        Category::DateParsing,
        Category::Analysis,
        Category::JsonParsing,
        Category::SearchAndAggregations,
        Category::LuceneIndexing,
        Category::DocumentParsing,
        Category::Networking,
        Category::Other,
    ];

    /// The key part of its metrics: `profile.cpu.date_parsing`.
    pub fn key(self) -> &'static str {
        match self {
            Category::Merges => "merges",
            Category::Refresh => "refresh",
            Category::Translog => "translog",
            Category::DateParsing => "date_parsing",
            Category::Analysis => "analysis",
            Category::JsonParsing => "json_parsing",
            Category::SearchAndAggregations => "search_and_aggregations",
            Category::LuceneIndexing => "lucene_indexing",
            Category::DocumentParsing => "document_parsing",
            Category::Networking => "networking",
            Category::Other => "other",
        }
    }

    /// In words, for tables.
    pub fn name(self) -> &'static str {
        match self {
            Category::Merges => "merges",
            Category::Refresh => "refresh",
            Category::Translog => "translog",
            Category::DateParsing => "date parsing",
            Category::Analysis => "analysis",
            Category::JsonParsing => "JSON / XContent parsing",
            Category::SearchAndAggregations => "search and aggregations",
            Category::LuceneIndexing => "Lucene indexing",
            Category::DocumentParsing => "mapping and document parsing",
            Category::Networking => "networking",
            Category::Other => "other",
        }
    }
}

/// The category of a stack, its frames as `package.Class.method`, leaf first.
pub fn categorise<S: AsRef<str>>(frames: &[S]) -> Category {
    RULES
        .iter()
        .find(|(_, patterns)| {
            frames
                .iter()
                .any(|f| patterns.iter().any(|p| f.as_ref().contains(p)))
        })
        .map_or(Category::Other, |(c, _)| *c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inner_work_names_the_sample() {
        // A date parsed while a document of a bulk request is parsed: date parsing.
        let date = [
            "java.time.format.DateTimeFormatterBuilder$CompositePrinterParser.parse",
            "java.time.format.DateTimeFormatter$ClassicFormat.parseObject",
            "org.opensearch.common.time.JavaDateFormatter.parse",
            "org.opensearch.index.mapper.DateFieldMapper.parseCreateField",
            "org.opensearch.index.mapper.DocumentParser.parseDocument",
            "org.opensearch.action.bulk.TransportShardBulkAction.performOpOnReplica",
            "io.netty.channel.nio.NioEventLoop.run",
        ];
        assert_eq!(categorise(&date), Category::DateParsing);
        // The JSON of the document itself.
        let json = [
            "com.fasterxml.jackson.core.json.UTF8StreamJsonParser.nextToken",
            "org.opensearch.common.xcontent.json.JsonXContentParser.nextToken",
            "org.opensearch.index.mapper.DocumentParser.parseObjectOrField",
        ];
        assert_eq!(categorise(&json), Category::JsonParsing);
        // Postings written under IndexWriter.addDocument, called from the engine.
        let lucene = [
            "org.apache.lucene.util.BytesRefHash.add",
            "org.apache.lucene.index.IndexingChain.processDocument",
            "org.apache.lucene.index.IndexWriter.addDocuments",
            "org.elasticsearch.index.engine.InternalEngine.index",
        ];
        assert_eq!(categorise(&lucene), Category::LuceneIndexing);
        // A merge thread is a merge, whatever Lucene code it runs.
        let merge = [
            "org.apache.lucene.codecs.lucene90.Lucene90DocValuesConsumer.addNumericField",
            "org.apache.lucene.index.SegmentMerger.merge",
            "org.apache.lucene.index.ConcurrentMergeScheduler$MergeThread.run",
        ];
        assert_eq!(categorise(&merge), Category::Merges);
        assert_eq!(
            categorise(&["io.netty.buffer.PooledByteBuf.getBytes"]),
            Category::Networking
        );
        assert_eq!(
            categorise(&["java.util.HashMap.get", "java.lang.Thread.run"]),
            Category::Other
        );
        assert_eq!(categorise::<&str>(&[]), Category::Other);
    }

    #[test]
    fn every_category_is_in_all_once_and_keys_have_no_spaces() {
        for (c, _) in RULES {
            assert_eq!(Category::ALL.iter().filter(|a| *a == c).count(), 1);
        }
        assert_eq!(RULES.len() + 1, Category::ALL.len());
        for c in Category::ALL {
            assert!(!c.key().contains(' '), "{}", c.key());
        }
    }
}
