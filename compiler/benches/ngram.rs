//! N-gram store and ranking benchmarks (docs/benchmarks/sentences.md).
//!
//! - `trigram lookup/packed trie`: one `count(w1, w2, w3)` in the memory-mapped `.ngr` of the
//!   whole Gutenberg corpus; `.../hewlett 16-byte records` is the thesis's layout measured side
//!   by side (sorted `[w1, w2, w3, count]` u32 records, one binary search).
//! - `score sentence`: tokenise and score one sentence (interpolated absolute discounting).
//! - `rank WantTicketToX`: realise-free ranking of its unique sentences (all of them).
//!
//! The database is `$ENSEMBLE_NGR` if set, else built once from shared/data/corpus into the
//! system temporary folder.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use ensemble_compiler::nlg::ngram::{self, BuildOptions, Builder, Method, NgramDb, tokenise};
use ensemble_compiler::nlg::overgen::Input;
use ensemble_compiler::nlg::rank;
use std::hint::black_box;
use std::path::PathBuf;

fn database() -> NgramDb {
    let path = std::env::var_os("ENSEMBLE_NGR")
        .map(PathBuf::from)
        .unwrap_or_else(|| std::env::temp_dir().join("ensemble-bench-corpus.ngr"));
    if !path.exists() {
        let corpus = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/data/corpus");
        let corpus = if corpus.exists() {
            corpus
        } else {
            PathBuf::from("/work/shared/data/corpus")
        };
        let mut b = Builder::new(BuildOptions::default());
        let mut files: Vec<PathBuf> = std::fs::read_dir(&corpus)
            .expect("the corpus folder (set ENSEMBLE_NGR to use a built database)")
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "txt"))
            .collect();
        files.sort();
        for f in files {
            let text = String::from_utf8_lossy(&std::fs::read(f).unwrap()).into_owned();
            tokenise::sentences(tokenise::gutenberg_body(&text), |s| {
                b.add_sentence(s).unwrap()
            });
        }
        b.finish(&path).unwrap();
    }
    NgramDb::open(&path).unwrap()
}

fn want_ticket() -> Input {
    ensemble_compiler::nlg::parse_lines("like, buy", "I, ticket, VARIABLE CityName").0
}

fn benches(c: &mut Criterion) {
    let db = database();
    // Every 997th trigram of the database: present keys spread over the whole table.
    let mut keys: Vec<[u32; 3]> = Vec::new();
    let mut flat: Vec<[u32; 4]> = Vec::new();
    let mut i = 0u64;
    db.for_each(3, |ids, count| {
        flat.push([ids[0], ids[1], ids[2], count as u32]);
        if i.is_multiple_of(997) {
            keys.push([ids[0], ids[1], ids[2]]);
        }
        i += 1;
    });
    flat.sort_unstable();
    let mut g = c.benchmark_group("trigram lookup");
    g.throughput(Throughput::Elements(keys.len() as u64));
    g.bench_function("packed trie (ours, mmap)", |b| {
        b.iter(|| {
            let mut sum = 0u64;
            for k in &keys {
                sum += db.count(black_box(k));
            }
            sum
        })
    });
    g.bench_function("hewlett 16-byte records", |b| {
        b.iter(|| {
            let mut sum = 0u64;
            for k in &keys {
                let k = black_box(k);
                if let Ok(j) = flat.binary_search_by(|r| [r[0], r[1], r[2]].cmp(k)) {
                    sum += flat[j][3] as u64;
                }
            }
            sum
        })
    });
    g.finish();

    let mut g = c.benchmark_group("score");
    g.throughput(Throughput::Elements(1));
    g.bench_function("score sentence", |b| {
        b.iter(|| {
            ngram::score(
                &db,
                black_box("I would like to buy a ticket to Boston."),
                Method::Interpolated,
            )
        })
    });
    g.finish();

    let (unique, _) = rank::generate(&want_ticket());
    let mut g = c.benchmark_group("rank");
    g.throughput(Throughput::Elements(unique.len() as u64));
    g.sample_size(10);
    g.bench_function("rank WantTicketToX", |b| {
        b.iter(|| {
            rank::rank(
                "WantTicketToX",
                unique.clone(),
                Some(&db),
                Method::Interpolated,
                &[],
                |_| "Boston".to_string(),
            )
        })
    });
    g.bench_function("generate WantTicketToX", |b| {
        b.iter(|| rank::generate(black_box(&want_ticket())))
    });
    g.finish();
}

criterion_group!(ngram_benches, benches);
criterion_main!(ngram_benches);
