//! `ensemble ngram`: build n-gram databases from corpora or count files, inspect and query them,
//! and show how a project's sentence states over-generate and rank.

use crate::io::{EXIT_CANNOT_RUN, EXIT_ERRORS, EXIT_OK, Io};
use clap::{Subcommand, ValueEnum};
use ensemble_compiler::nlg::ngram::{
    self, BuildOptions, Builder, Method, NgramDb, build, tokenise,
};
use ensemble_compiler::nlg::rank;
use std::collections::{BTreeSet, HashMap};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::time::Instant;

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum ScoreMethod {
    /// Stupid back-off.
    Backoff,
    /// Hewlett's Eq. 3.1 exactly (-inf when an n-gram is unseen).
    Eq31,
    /// Interpolated absolute discounting (the default ranking).
    Interpolated,
    /// Interpolated modified Kneser-Ney.
    KneserNey,
}

impl From<ScoreMethod> for Method {
    fn from(m: ScoreMethod) -> Self {
        match m {
            ScoreMethod::Backoff => Method::StupidBackoff,
            ScoreMethod::Eq31 => Method::Eq31,
            ScoreMethod::Interpolated => Method::Interpolated,
            ScoreMethod::KneserNey => Method::KneserNey,
        }
    }
}

#[derive(Subcommand, Debug)]
pub enum NgramCommand {
    /// Count 1- to 3-grams of plain-text corpora (or Web1T-style count files) into a database.
    Build {
        /// Text files, or folders of `.txt` files (with --counts: count files, or folders of them).
        #[arg(required = true)]
        inputs: Vec<PathBuf>,
        #[arg(short = 'o', long = "out")]
        out: PathBuf,
        /// Inputs are `w1 w2 w3<TAB>count` lines (Google Web1T style), not text.
        #[arg(long)]
        counts: bool,
        /// Keep only n-grams of words in this list (one per line, e.g. /usr/share/dict/american-english).
        #[arg(long = "dict", value_name = "FILE")]
        dictionaries: Vec<PathBuf>,
        /// Memory for counting before sorted runs are spilled to disk.
        #[arg(long, default_value_t = 512)]
        memory_mb: usize,
        /// Folder for sorted runs and intermediate files (default: the output's folder).
        #[arg(long)]
        temp_dir: Option<PathBuf>,
    },
    /// Sizes of a database: vocabulary, n-grams, bytes per section and per trigram.
    Info { db: PathBuf },
    /// Score sentences against a database.
    Score {
        db: PathBuf,
        #[arg(required = true)]
        sentences: Vec<String>,
        #[arg(long, value_enum, default_value = "interpolated")]
        method: ScoreMethod,
    },
    /// Print every n-gram of one order as `w1 w2 w3<TAB>count` (the Web1T format).
    Dump {
        db: PathBuf,
        /// 1, 2 or 3; all orders when absent.
        #[arg(long)]
        order: Option<usize>,
    },
    /// Over-generate and rank a project's sentence states; print variation counts and the best.
    Rank {
        path: PathBuf,
        /// Only this sentence state.
        #[arg(long)]
        sentence: Option<String>,
        #[arg(long, default_value_t = 10)]
        top: usize,
        /// Print the vocabulary of every realisation instead (one word per line), for a
        /// dictionary that restricts a database to what the project says.
        #[arg(long)]
        lexicon: bool,
    },
    /// Measure the ranking on a judged set (tests/fixtures/nlg-eval/eval.ron): the share of
    /// sentence states whose whole spoken set is acceptable, tuning and held-out parts apart,
    /// for the baseline ranking and for today's, each with the first `choose_among` spoken and
    /// with the score-gap rule.
    Eval {
        set: PathBuf,
        /// Rank with this database instead of the set's own counts.
        #[arg(long)]
        ngrams: Option<PathBuf>,
        /// The score-gap margin to measure, instead of the set's `score_margin`.
        #[arg(long)]
        margin: Option<f64>,
        /// Measure margins 0 to 2 in steps of 0.05 on the TUNING states only (how the default
        /// margin is chosen; the held-out states are never shown).
        #[arg(long, conflicts_with_all = ["verbose", "margin"])]
        sweep: bool,
        /// Print every state's spoken set.
        #[arg(long)]
        verbose: bool,
        /// Print only this part's states with --verbose (`tuning` while tuning: the held-out
        /// states are not looked at).
        #[arg(long, value_parser = ["tuning", "held-out"])]
        part: Option<String>,
        /// Print the vocabulary of every realisation of every state, its acceptable lines and
        /// every word a realisation may add (articles, prepositions, modals), one word per
        /// line, instead: the dictionary the set's counts are restricted to.
        #[arg(long, conflicts_with_all = ["verbose", "sweep"])]
        lexicon: bool,
    },
}

pub fn run(command: NgramCommand, io: &mut Io<'_>) -> i32 {
    match command {
        NgramCommand::Build {
            inputs,
            out,
            counts,
            dictionaries,
            memory_mb,
            temp_dir,
        } => build_db(
            &inputs,
            &out,
            counts,
            &dictionaries,
            memory_mb,
            temp_dir,
            io,
        ),
        NgramCommand::Info { db } => info(&db, io),
        NgramCommand::Score {
            db,
            sentences,
            method,
        } => score(&db, &sentences, method.into(), io),
        NgramCommand::Dump { db, order } => dump(&db, order, io),
        NgramCommand::Rank {
            path,
            sentence,
            top,
            lexicon,
        } => rank_project(&path, sentence.as_deref(), top, lexicon, io),
        NgramCommand::Eval {
            set, lexicon: true, ..
        } => eval_lexicon(&set, io),
        NgramCommand::Eval {
            set,
            ngrams,
            margin,
            sweep,
            verbose,
            part,
            lexicon: false,
        } => evaluate(
            &set,
            ngrams.as_deref(),
            margin,
            sweep,
            verbose.then_some(part.as_deref()),
            io,
        ),
    }
}

/// A database (`.ngr`) or a Web1T-style count file.
fn open(path: &Path, io: &mut Io<'_>) -> Option<NgramDb> {
    match ngram::open_source(path) {
        Ok(db) => Some(db),
        Err(e) => {
            let _ = writeln!(io.err, "error: {e}");
            None
        }
    }
}

/// Input files, folders expanded (sorted, hidden entries skipped).
fn expand(inputs: &[PathBuf], counts: bool) -> std::io::Result<Vec<PathBuf>> {
    fn walk(dir: &Path, counts: bool, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)?
            .map(|e| e.map(|e| e.path()))
            .collect::<Result<_, _>>()?;
        entries.sort();
        for p in entries {
            let hidden = p
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with('.'));
            if hidden {
                continue;
            }
            if p.is_dir() {
                walk(&p, counts, out)?;
            } else if counts || p.extension().is_some_and(|e| e == "txt") {
                out.push(p);
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    for i in inputs {
        if i.is_dir() {
            walk(i, counts, &mut out)?;
        } else {
            std::fs::metadata(i)?;
            out.push(i.clone());
        }
    }
    Ok(out)
}

fn mb(bytes: u64) -> f64 {
    bytes as f64 / 1e6
}

fn build_db(
    inputs: &[PathBuf],
    out: &Path,
    counts: bool,
    dictionaries: &[PathBuf],
    memory_mb: usize,
    temp_dir: Option<PathBuf>,
    io: &mut Io<'_>,
) -> i32 {
    let started = Instant::now();
    let files = match expand(inputs, counts) {
        Ok(f) if !f.is_empty() => f,
        Ok(_) => {
            let _ = writeln!(io.err, "error: no input files");
            return EXIT_CANNOT_RUN;
        }
        Err(e) => {
            let _ = writeln!(io.err, "error: cannot read the inputs: {e}");
            return EXIT_CANNOT_RUN;
        }
    };
    let inputs: Vec<&Path> = files
        .iter()
        .chain(dictionaries)
        .map(PathBuf::as_path)
        .collect();
    if let Err(code) = crate::io::refuse_overwriting_inputs(&inputs, &[out], io) {
        return code;
    }
    let dictionary = if dictionaries.is_empty() {
        None
    } else {
        let mut words = std::collections::HashSet::new();
        for d in dictionaries {
            match std::fs::read_to_string(d) {
                Ok(text) => words.extend(build::read_dictionary(&text)),
                Err(e) => {
                    let _ = writeln!(io.err, "error: cannot read dictionary {}: {e}", d.display());
                    return EXIT_CANNOT_RUN;
                }
            }
        }
        let _ = writeln!(io.err, "dictionary: {} words", words.len());
        Some(words)
    };
    let total: u64 = files
        .iter()
        .map(|f| std::fs::metadata(f).map(|m| m.len()).unwrap_or(0))
        .sum();
    let mut builder = Builder::new(BuildOptions {
        memory: memory_mb.max(1) << 20,
        temp_dir,
        dictionary,
    });
    let mut done = 0u64;
    for (i, file) in files.iter().enumerate() {
        let result = if counts {
            read_counts(file, &mut builder)
        } else {
            read_text(file, &mut builder)
        };
        match result {
            Ok(()) => {}
            Err(ReadError::Io(e)) => {
                let _ = writeln!(io.err, "error: {}: {e}", file.display());
                return EXIT_CANNOT_RUN;
            }
            Err(ReadError::Line(line, e)) => {
                let _ = writeln!(io.err, "error: {}:{line}: {e}", file.display());
                return EXIT_ERRORS;
            }
        }
        done += std::fs::metadata(file).map(|m| m.len()).unwrap_or(0);
        let (sentences, tokens, runs) = builder.progress();
        let _ = writeln!(
            io.err,
            "[{}/{}] {:.1}/{:.1} MB ({:.0}%), {sentences} sentences, {tokens} tokens, {runs} runs spilled, {:.1} s  {}",
            i + 1,
            files.len(),
            mb(done),
            mb(total),
            100.0 * done as f64 / total.max(1) as f64,
            started.elapsed().as_secs_f64(),
            file.file_name()
                .map(|n| n.to_string_lossy())
                .unwrap_or_default(),
        );
    }
    let _ = writeln!(io.err, "sorting, merging and writing {} ...", out.display());
    match builder.finish(out) {
        Ok(r) => {
            let secs = started.elapsed().as_secs_f64();
            let _ = writeln!(
                io.err,
                "wrote {}: {} words, {} bigrams, {} trigrams, {} bytes ({:.2} bytes per trigram overall), {} tokens ({} outside the dictionary), {} runs, {secs:.1} s",
                out.display(),
                r.vocabulary,
                r.bigrams,
                r.trigrams,
                r.bytes,
                r.bytes as f64 / r.trigrams.max(1) as f64,
                r.tokens,
                r.out_of_dictionary,
                r.runs
            );
            EXIT_OK
        }
        Err(e) => {
            let _ = writeln!(io.err, "error: cannot write {}: {e}", out.display());
            EXIT_CANNOT_RUN
        }
    }
}

enum ReadError {
    Io(std::io::Error),
    Line(usize, String),
}

fn read_text(file: &Path, b: &mut Builder) -> Result<(), ReadError> {
    let bytes = std::fs::read(file).map_err(ReadError::Io)?;
    let text = String::from_utf8_lossy(&bytes);
    let mut result = Ok(());
    tokenise::sentences(tokenise::gutenberg_body(&text), |s| {
        if result.is_ok() {
            result = b.add_sentence(s);
        }
    });
    result.map_err(ReadError::Io)
}

fn read_counts(file: &Path, b: &mut Builder) -> Result<(), ReadError> {
    let f = std::fs::File::open(file).map_err(ReadError::Io)?;
    for (i, line) in BufReader::new(f).lines().enumerate() {
        let line = line.map_err(ReadError::Io)?;
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let (words, count) =
            build::parse_count_line(&line).map_err(|e| ReadError::Line(i + 1, e))?;
        b.add_counted(&words, count)
            .map_err(|e| ReadError::Line(i + 1, e.to_string()))?;
    }
    Ok(())
}

fn info(path: &Path, io: &mut Io<'_>) -> i32 {
    let Some(db) = open(path, io) else {
        return EXIT_ERRORS;
    };
    let s = db.stats();
    let _ = writeln!(io.out, "{}", path.display());
    let _ = writeln!(io.out, "  vocabulary      {}", s.vocabulary);
    let _ = writeln!(io.out, "  bigrams         {}", s.bigrams);
    let _ = writeln!(io.out, "  trigrams        {}", s.trigrams);
    let _ = writeln!(io.out, "  tokens (N)      {}", s.total);
    let _ = writeln!(io.out, "  distinct counts {}", s.distinct_counts);
    let _ = writeln!(io.out, "  file bytes      {}", s.file_bytes);
    for (name, bytes, bits) in &s.sections {
        let _ = writeln!(
            io.out,
            "    {name:<20} {bytes:>12} bytes  {bits:>2} bits/item"
        );
    }
    let _ = writeln!(
        io.out,
        "  bytes per trigram: {:.2} (trigram level), {:.2} (whole file); Hewlett: 16",
        s.trigram_bytes_per_trigram(),
        s.file_bytes as f64 / s.trigrams.max(1) as f64
    );
    EXIT_OK
}

fn score(path: &Path, sentences: &[String], method: Method, io: &mut Io<'_>) -> i32 {
    let Some(db) = open(path, io) else {
        return EXIT_ERRORS;
    };
    for s in sentences {
        let r = ngram::score(&db, s, method);
        let _ = write!(io.out, "{:>12.6}  {s}", r.value);
        if r.unseen_trigrams > 0 {
            let _ = write!(io.out, "  [{} unseen trigrams]", r.unseen_trigrams);
        }
        if !r.oov.is_empty() {
            let _ = write!(io.out, "  [unknown: {}]", r.oov.join(", "));
        }
        let _ = writeln!(io.out);
    }
    EXIT_OK
}

fn dump(path: &Path, order: Option<usize>, io: &mut Io<'_>) -> i32 {
    let Some(db) = open(path, io) else {
        return EXIT_ERRORS;
    };
    let orders: Vec<usize> = match order {
        Some(o @ 1..=3) => vec![o],
        Some(o) => {
            let _ = writeln!(io.err, "error: order {o}: the database holds orders 1 to 3");
            return EXIT_CANNOT_RUN;
        }
        None => vec![1, 2, 3],
    };
    let mut failed = false;
    for o in orders {
        db.for_each(o, |ids, count| {
            if failed {
                return;
            }
            let words: Vec<&str> = ids.iter().map(|&i| db.word(i).unwrap_or("?")).collect();
            failed = writeln!(io.out, "{}\t{count}", words.join(" ")).is_err();
        });
    }
    EXIT_OK
}

fn rank_project(
    path: &Path,
    only: Option<&str>,
    top: usize,
    lexicon: bool,
    io: &mut Io<'_>,
) -> i32 {
    let c = match ensemble_compiler::compile_path(path) {
        Ok(c) => c,
        Err(e) => return crate::io::cannot_run(io, &e),
    };
    let module = &c.module;
    let mut dbs: HashMap<PathBuf, Option<NgramDb>> = HashMap::new();
    let mut words = BTreeSet::new();
    let mut found = false;
    for (_, s) in module.sentences.iter() {
        if only.is_some_and(|o| o != s.name.text) {
            continue;
        }
        found = true;
        let file = &module.sentence_files[s.file];
        let db = file.ngrams.as_ref().and_then(|(p, _)| {
            dbs.entry(p.clone())
                .or_insert_with(|| ngram::open_source(p).ok())
                .as_ref()
        });
        let values = ensemble_compiler::nlg::slot_values(module, file);
        let slot = |n: &str| values.get(n).cloned().unwrap_or_else(|| "<unk>".into());
        let (unique, variations) = rank::generate(&s.input);
        if lexicon {
            for r in &unique {
                for t in tokenise::sentence_tokens(&r.sentence.with_slots(slot)) {
                    if !t.starts_with('<') {
                        words.insert(t);
                    }
                }
            }
            for (_, kind) in &s.input.slot_kinds {
                for value in kind.stand_ins() {
                    words.extend(
                        tokenise::sentence_tokens(value)
                            .into_iter()
                            .filter(|t| !t.starts_with('<')),
                    );
                }
            }
            continue;
        }
        let n_unique = unique.len();
        // As the compiler ranks: slot kinds, then the designer's bans and pins.
        let mut ranked = rank::rank(
            &s.name.text,
            unique,
            db,
            file.scoring,
            &s.input.slot_kinds,
            slot,
        );
        rank::put_fitting_first(&mut ranked, &s.input);
        let ban: Vec<&str> = s.ban.iter().map(|n| n.text.as_str()).collect();
        let pin: Vec<&str> = s.pin.iter().map(|n| n.text.as_str()).collect();
        let accept: Vec<&str> = s.accept.iter().map(|n| n.text.as_str()).collect();
        rank::apply_judgements(&mut ranked, &ban, &pin, &accept);
        let judged: Vec<&str> = pin.iter().chain(&accept).copied().collect();
        // The lines the game says: the compiler's spoken-set rule on the same list.
        let speaking = rank::Speaking {
            choose_among: file.choose_among,
            score_margin: s.score_margin.unwrap_or(file.score_margin),
        };
        let spoken = speaking.count(&ranked, &s.input, &judged);
        let _ = writeln!(
            io.out,
            "{}: {variations} variations, {n_unique} unique sentences, scored by {}{}; the game speaks {spoken} (marked `spoken`)",
            s.name.text,
            file.scoring.as_str(),
            if db.is_some() {
                ""
            } else {
                " (no n-gram database: unranked)"
            }
        );
        for (i, c) in ranked.iter().take(top.max(spoken)).enumerate() {
            let mark = if i < spoken { "spoken" } else { "" };
            let _ = writeln!(
                io.out,
                "  {mark:<6}  {:>11.6}  {:08x}  {}",
                c.score, c.id, c.template
            );
        }
    }
    if lexicon {
        for w in words {
            let _ = writeln!(io.out, "{w}");
        }
    }
    if !found {
        let _ = writeln!(
            io.err,
            "error: no sentence state{} in {}",
            only.map(|o| format!(" `{o}`")).unwrap_or_default(),
            path.display()
        );
        return EXIT_ERRORS;
    }
    EXIT_OK
}

fn evaluate(
    path: &Path,
    ngrams: Option<&Path>,
    margin: Option<f64>,
    sweep: bool,
    // `Some(part)` prints each state's spoken set, of that part only when given.
    verbose: Option<Option<&str>>,
    io: &mut Io<'_>,
) -> i32 {
    use ensemble_compiler::nlg::eval;
    let (mut set, own) = match eval::read(path) {
        Ok(x) => x,
        Err(e) => {
            let _ = writeln!(io.err, "error: {e}");
            return EXIT_CANNOT_RUN;
        }
    };
    if let Some(m) = margin {
        if m.is_nan() || m < 0.0 {
            let _ = writeln!(io.err, "error: --margin must be 0 or more, not {m}");
            return EXIT_CANNOT_RUN;
        }
        set.score_margin = m;
    }
    let db_path = ngrams.unwrap_or(&own);
    let Some(db) = open(db_path, io) else {
        return EXIT_CANNOT_RUN;
    };
    let _ = writeln!(
        io.out,
        "{} states, choose_among {}, score_margin {}, counts {}",
        set.states.len(),
        set.choose_among,
        set.score_margin,
        db_path.display()
    );
    if sweep {
        return sweep_margins(&set, &db, io);
    }
    let first_only = rank::Speaking {
        score_margin: f64::INFINITY,
        ..set.speaking()
    };
    for ranking in eval::Ranking::ALL {
        let _ = writeln!(io.out, "{}:", ranking.as_str());
        let ranked = eval::rank_all(&set, &db, ranking);
        for (rule, speaking) in [
            (format!("first {}", set.choose_among), first_only),
            (format!("score gap {}", set.score_margin), set.speaking()),
        ] {
            let outcomes = eval::judge(&ranked, speaking);
            let _ = writeln!(io.out, "  spoken: {rule}");
            for (part, t) in eval::tally(&outcomes) {
                write_tally(part.as_str(), &t, io);
            }
            if let Some(only) = verbose {
                for o in outcomes
                    .iter()
                    .filter(|o| only.is_none_or(|p| p == o.part.as_str()))
                {
                    let mark = if o.spoken_ok {
                        "ok "
                    } else if o.best_ok {
                        "1/2"
                    } else {
                        "-- "
                    };
                    let _ = writeln!(
                        io.out,
                        "    {mark} {:<8} {:<22} {}",
                        o.part.as_str(),
                        o.name,
                        o.spoken.join(" | ")
                    );
                }
            }
        }
    }
    EXIT_OK
}

/// `ngram eval --lexicon`: every word the set's states may be realised with.
fn eval_lexicon(path: &Path, io: &mut Io<'_>) -> i32 {
    use ensemble_compiler::nlg::eval;
    let (set, _) = match eval::read(path) {
        Ok(x) => x,
        Err(e) => {
            let _ = writeln!(io.err, "error: {e}");
            return EXIT_CANNOT_RUN;
        }
    };
    let mut words = BTreeSet::new();
    let mut add = |text: &str| {
        for t in tokenise::sentence_tokens(text) {
            if !t.starts_with('<') {
                words.insert(t);
            }
        }
    };
    let slot = |n: &str| {
        set.examples
            .get(n)
            .cloned()
            .unwrap_or_else(|| "<unk>".into())
    };
    for s in &set.states {
        let (mut input, _, _) = ensemble_compiler::nlg::parse_lines(&s.verbs, &s.nouns);
        input.slot_kinds = ensemble_compiler::nlg::slot_kinds(&set.slots, &s.slots);
        for r in rank::generate(&input).0 {
            add(&r.sentence.with_slots(slot));
        }
        for line in &s.acceptable {
            let filled = line
                .split('{')
                .enumerate()
                .map(|(i, part)| match (i, part.split_once('}')) {
                    (0, _) | (_, None) => part.to_string(),
                    (_, Some((name, rest))) => format!("{}{rest}", slot(name)),
                })
                .collect::<String>();
            add(&filled);
        }
    }
    for kind in set
        .slots
        .values()
        .chain(set.states.iter().flat_map(|s| s.slots.values()))
    {
        for value in kind.stand_ins() {
            add(value);
        }
    }
    let closed = ensemble_compiler::nlg::input::WRITTEN_PREPOSITIONS
        .iter()
        .chain(ensemble_compiler::nlg::input::DETERMINERS)
        .chain(ensemble_compiler::nlg::morph::MODALS)
        .chain(ensemble_compiler::nlg::overgen::PREPOSITIONS)
        .chain(&[
            "not", "cannot", "do", "does", "did", "have", "has", "had", "be", "is", "are", "was",
            "were", "am",
        ]);
    for w in closed {
        words.insert(w.to_string());
    }
    for w in words {
        let _ = writeln!(io.out, "{w}");
    }
    EXIT_OK
}

fn write_tally(label: &str, t: &ensemble_compiler::nlg::eval::Tally, io: &mut Io<'_>) {
    use ensemble_compiler::nlg::eval::Tally;
    let _ = writeln!(
        io.out,
        "    {label:<8}  spoken set acceptable {:>2}/{:<2} ({:5.1}%)  best acceptable {:>2}/{:<2} ({:5.1}%)  lines spoken {:.2}",
        t.spoken_ok,
        t.states,
        Tally::percent(t.spoken_ok, t.states),
        t.best_ok,
        t.states,
        Tally::percent(t.best_ok, t.states),
        t.spoken_lines as f64 / t.states.max(1) as f64,
    );
}

/// The tuning part under margins 0, 0.05 … 2 for each ranking: the default margin is read off
/// this table, so it never sees a held-out state.
fn sweep_margins(
    set: &ensemble_compiler::nlg::eval::EvalSet,
    db: &NgramDb,
    io: &mut Io<'_>,
) -> i32 {
    use ensemble_compiler::nlg::eval;
    for ranking in eval::Ranking::ALL {
        let _ = writeln!(io.out, "{} (tuning states only):", ranking.as_str());
        let ranked = eval::rank_all(set, db, ranking);
        for step in 0..=40 {
            let margin = f64::from(step) * 0.05;
            let speaking = rank::Speaking {
                score_margin: margin,
                ..set.speaking()
            };
            let outcomes: Vec<_> = eval::judge(&ranked, speaking)
                .into_iter()
                .filter(|o| o.part == eval::Part::Tuning)
                .collect();
            for (_, t) in eval::tally(&outcomes) {
                write_tally(&format!("{margin:.2}"), &t, io);
            }
        }
    }
    EXIT_OK
}
