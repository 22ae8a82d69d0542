//! Our realiser (RealPro is proprietary and not available): turns a [`Clause`] into English.
//!
//! It does what Hewlett relied on RealPro for: subject-verb agreement, pronoun case and person
//! ("you" in the first person as a subject is "I"), past tense of irregular verbs, modal
//! auxiliaries, questions with subject-auxiliary inversion, do-support and wh-fronting, and
//! articles. Like RealPro it is deterministic and realises whatever it is given: ungrammatical
//! inputs give ungrammatical sentences, which the n-gram ranking pushes down.

use super::morph::{self, Case, Gender, Number, Person};
use super::tree::*;

pub use crate::ir::sentence::{Sentence, Token, capitalise};

/// Agreement features of the subject (a clause without one agrees like "you").
fn agreement(subject: Option<&NounPhrase>) -> (Person, Number) {
    match subject.map(|s| &s.head) {
        Some(Head::Pronoun { person, number, .. }) => (*person, *number),
        Some(Head::Common(w)) if super::lexicon::is_plural(w) => (Person::Third, Number::Plural),
        Some(_) => (Person::Third, Number::Singular),
        None => (Person::Second, Number::Singular),
    }
}

fn push_word(out: &mut Vec<Token>, w: impl Into<String>) {
    out.push(Token::Word(w.into()));
}

fn realise_np(np: &NounPhrase, case: Case, out: &mut Vec<Token>) {
    match &np.head {
        Head::Pronoun {
            person,
            number,
            gender,
        } => push_word(out, morph::pronoun(*person, *number, *gender, case)),
        head => {
            if let Some(owner) = &np.possessor {
                realise_np(owner, Case::Object, out);
                push_word(out, "'s");
            }
            let indefinite = || match head {
                // Before a slot the runtime picks "a"/"an" once the value is known.
                Head::Common(w) | Head::Proper(w) => morph::indefinite_article(w),
                _ => "a",
            };
            match &np.det {
                Det::None => {}
                Det::The => push_word(out, "the"),
                Det::A => push_word(out, indefinite()),
                Det::Written(w) if w == "a" || w == "an" => push_word(out, indefinite()),
                Det::Written(w) => push_word(out, w.clone()),
                Det::Possessive(p, n) => push_word(
                    out,
                    morph::pronoun(*p, *n, Gender::Neuter, Case::Possessive),
                ),
            }
            match head {
                Head::Common(w) | Head::Proper(w) => push_word(out, w.clone()),
                Head::Slot(name) => out.push(Token::Slot(name.clone())),
                Head::Pronoun { .. } => unreachable!("handled above"),
            }
            if let Some(name) = &np.name {
                out.push(Token::Slot(name.clone()));
            }
        }
    }
    for pp in &np.attached {
        realise_pp(pp, out);
    }
}

fn realise_pp(pp: &PrepPhrase, out: &mut Vec<Token>) {
    if let Some(p) = &pp.prep {
        push_word(out, p.clone());
    }
    realise_np(&pp.np, Case::Object, out);
}

fn realise_arguments(v: &VerbNode, out: &mut Vec<Token>) {
    for o in &v.objects {
        realise_np(o, Case::Object, out);
    }
    for pp in &v.obliques {
        realise_pp(pp, out);
    }
}

/// A non-head verb in the form its predecessor selects.
fn complement_form(prev: &str, v: &VerbNode) -> Vec<String> {
    let form = if v.past && matches!(prev, "be" | "have" | "get") {
        VerbForm::Participle
    } else {
        v.form
    };
    match form {
        VerbForm::ToInfinitive => vec!["to".into(), v.lemma.clone()],
        VerbForm::Gerund => vec![morph::gerund(&v.lemma)],
        VerbForm::Participle => vec![morph::participle(&v.lemma)],
    }
}

/// The verbs after the head, each in the form the one before it selects, with its arguments.
fn realise_complements(clause: &Clause, tokens: &mut Vec<Token>) {
    for pair in clause.verbs.windows(2) {
        for w in complement_form(&pair[0].lemma, &pair[1]) {
            push_word(tokens, w);
        }
        realise_arguments(&pair[1], tokens);
    }
}

/// Realises a clause. Never fails: any tree gives some word sequence.
pub fn realise(clause: &Clause) -> Sentence {
    let (person, number) = match &clause.question {
        Some(Question::Wh {
            placement: WhPlacement::Subject,
            ..
        }) => (Person::Third, Number::Singular),
        _ => agreement(clause.subject.as_ref()),
    };
    let Some(head) = clause.verbs.first() else {
        // Nouns only: a fragment ("A ticket to Boston.").
        let mut tokens = Vec::new();
        if let Some(s) = &clause.subject {
            realise_np(s, Case::Subject, &mut tokens);
        }
        return Sentence {
            tokens,
            question: clause.question.is_some(),
        };
    };
    let tense = if head.past { Tense::Past } else { clause.tense };

    if clause.imperative {
        // A command: the base form, "do not" before it when negated, no subject.
        let mut tokens = Vec::new();
        if clause.negated {
            push_word(&mut tokens, "do");
            push_word(&mut tokens, "not");
        }
        push_word(&mut tokens, head.lemma.clone());
        realise_arguments(head, &mut tokens);
        realise_complements(clause, &mut tokens);
        return Sentence {
            tokens,
            question: false,
        };
    }

    // The verb group: the finite word, then the non-finite rest of the head's group.
    // "would like", "liked", "would have liked", "are" (+ "booked" as a complement).
    let (finite, rest): (String, Vec<String>) = match &clause.modal {
        Some(m) if tense == Tense::Past => (
            m.clone(),
            vec!["have".into(), morph::participle(&head.lemma)],
        ),
        Some(m) => (m.clone(), vec![head.lemma.clone()]),
        None if tense == Tense::Past => (morph::past(&head.lemma, person, number), vec![]),
        None => (morph::present(&head.lemma, person, number), vec![]),
    };

    // Questions invert the subject with an auxiliary, and negation follows one; without an
    // auxiliary, do-support supplies it ("Does the ferry leave?", "It does not leave.").
    let inverted = match &clause.question {
        Some(Question::YesNo)
        | Some(Question::Wh {
            placement: WhPlacement::Fronted,
            ..
        }) => clause.subject.is_some(),
        _ => false,
    };
    // "be", and "have" before a participle (a perfect: "Have you seen my cat?"), are
    // auxiliaries themselves.
    let perfect = head.lemma == "have" && clause.verbs.get(1).is_some_and(|v| v.past);
    let auxiliary = clause.modal.is_some() || head.lemma == "be" || perfect;
    let (mut finite, mut rest) = if (inverted || clause.negated) && !auxiliary {
        let do_form = if tense == Tense::Past {
            "did".to_string()
        } else {
            morph::present("do", person, number)
        };
        (do_form, {
            let mut r = vec![head.lemma.clone()];
            r.extend(rest);
            r
        })
    } else {
        (finite, rest)
    };
    if clause.negated {
        if finite == "can" && !inverted {
            finite = "cannot".into();
        } else {
            rest.insert(0, "not".into());
        }
    }

    let mut tokens = Vec::new();
    if let Some(Question::Wh {
        word,
        placement: WhPlacement::Fronted | WhPlacement::Subject,
    }) = &clause.question
    {
        push_word(&mut tokens, word.clone());
    }
    if inverted {
        push_word(&mut tokens, finite);
        if let Some(s) = &clause.subject {
            realise_np(s, Case::Subject, &mut tokens);
        }
    } else {
        if let Some(s) = &clause.subject {
            realise_np(s, Case::Subject, &mut tokens);
        }
        push_word(&mut tokens, finite);
    }
    for w in rest.drain(..) {
        push_word(&mut tokens, w);
    }
    realise_arguments(head, &mut tokens);
    realise_complements(clause, &mut tokens);
    if let Some(Question::Wh {
        word,
        placement: WhPlacement::InSitu,
    }) = &clause.question
    {
        push_word(&mut tokens, word.clone());
    }
    Sentence {
        tokens,
        question: clause.question.is_some(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pronoun(word: &str) -> Head {
        let (person, number) = morph::pronoun_features(word).unwrap();
        Head::Pronoun {
            person,
            number,
            gender: morph::pronoun_gender(word),
        }
    }

    fn np(head: Head, det: Det) -> NounPhrase {
        NounPhrase {
            det,
            ..NounPhrase::new(head, 0)
        }
    }

    fn pp(prep: &str, np: NounPhrase) -> PrepPhrase {
        PrepPhrase {
            prep: Some(prep.into()),
            np,
        }
    }

    fn text(c: &Clause) -> String {
        realise(c).with_slots(|n| {
            if n == "CityName" {
                "Boston".into()
            } else {
                "seven".into()
            }
        })
    }

    /// Fig. 3.3: have (question +), I: lexeme "you" person 1st, II: ticket with "your"
    /// (person 2nd, poss), attribute "can".
    #[test]
    fn fig_3_3_can_i_have_your_ticket() {
        let mut have = VerbNode::new("have", false);
        have.objects.push(np(
            Head::Common("ticket".into()),
            Det::Possessive(Person::Second, Number::Singular),
        ));
        let clause = Clause {
            subject: Some(np(
                Head::Pronoun {
                    person: Person::First,
                    number: Number::Singular,
                    gender: Gender::Neuter,
                },
                Det::None,
            )),
            verbs: vec![have],
            modal: Some("can".into()),
            tense: Tense::Present,
            question: Some(Question::YesNo),
            negated: false,
            imperative: false,
        };
        assert_eq!(text(&clause), "Can I have your ticket?");
    }

    fn want_ticket(modal: Option<&str>, det: Det) -> Clause {
        let like = VerbNode::new("like", false);
        let mut buy = VerbNode::new("buy", false);
        let mut ticket = np(Head::Common("ticket".into()), det);
        ticket
            .attached
            .push(pp("to", np(Head::Slot("CityName".into()), Det::None)));
        buy.objects.push(ticket);
        Clause {
            subject: Some(np(pronoun("I"), Det::None)),
            verbs: vec![like, buy],
            modal: modal.map(Into::into),
            tense: Tense::Present,
            question: None,
            negated: false,
            imperative: false,
        }
    }

    /// Fig. 3.4's candidates.
    #[test]
    fn fig_3_4_want_ticket_to_x() {
        assert_eq!(
            text(&want_ticket(Some("would"), Det::A)),
            "I would like to buy a ticket to Boston."
        );
        assert_eq!(
            text(&want_ticket(Some("would"), Det::The)),
            "I would like to buy the ticket to Boston."
        );
        assert_eq!(
            text(&want_ticket(None, Det::A)),
            "I like to buy a ticket to Boston."
        );
        assert_eq!(
            text(&want_ticket(Some("would"), Det::None)),
            "I would like to buy ticket to Boston."
        );
        assert_eq!(
            realise(&want_ticket(Some("would"), Det::A)).template(),
            "I would like to buy a ticket to {CityName}."
        );
    }

    /// Fig. 3.5: be, PAST book; you, flight, CityName.
    #[test]
    fn fig_3_5_confirm_flight_x() {
        let confirm = |modal: Option<&str>, prep: Option<&str>, tense: Tense| {
            let be = VerbNode::new("be", false);
            let mut book = VerbNode::new("book", true);
            let mut flight = np(Head::Common("flight".into()), Det::A);
            flight
                .attached
                .push(pp("to", np(Head::Slot("CityName".into()), Det::None)));
            match prep {
                Some(p) => book.obliques.push(pp(p, flight)),
                None => book.objects.push(flight),
            }
            Clause {
                subject: Some(np(pronoun("you"), Det::None)),
                verbs: vec![be, book],
                modal: modal.map(Into::into),
                tense,
                question: None,
                negated: false,
                imperative: false,
            }
        };
        assert_eq!(
            text(&confirm(None, None, Tense::Present)),
            "You are booked a flight to Boston."
        );
        assert_eq!(
            text(&confirm(None, Some("on"), Tense::Present)),
            "You are booked on a flight to Boston."
        );
        assert_eq!(
            text(&confirm(Some("would"), Some("on"), Tense::Present)),
            "You would be booked on a flight to Boston."
        );
        assert_eq!(
            text(&confirm(None, Some("on"), Tense::Past)),
            "You were booked on a flight to Boston."
        );
    }

    fn when_travel(modal: Option<&str>, tense: Tense, placement: WhPlacement) -> Clause {
        let like = VerbNode::new("like", false);
        let travel = VerbNode::new("travel", false);
        Clause {
            subject: Some(np(pronoun("you"), Det::None)),
            verbs: vec![like, travel],
            modal: modal.map(Into::into),
            tense,
            question: Some(Question::Wh {
                word: "when".into(),
                placement,
            }),
            negated: false,
            imperative: false,
        }
    }

    /// Wh-fronting with inversion, and do-support when there is no auxiliary.
    #[test]
    fn when_would_you_like_to_travel() {
        use WhPlacement::*;
        assert_eq!(
            text(&when_travel(Some("would"), Tense::Present, Fronted)),
            "When would you like to travel?"
        );
        assert_eq!(
            text(&when_travel(None, Tense::Present, Fronted)),
            "When do you like to travel?"
        );
        assert_eq!(
            text(&when_travel(None, Tense::Past, Fronted)),
            "When did you like to travel?"
        );
        assert_eq!(
            text(&when_travel(Some("would"), Tense::Present, InSitu)),
            "You would like to travel when?"
        );
    }

    /// Fig. 5.5: the wh-word is the subject, so there is no do-support.
    #[test]
    fn what_happened_to_the_flight() {
        let mut happen = VerbNode::new("happen", true);
        let mut flight = np(Head::Common("flight".into()), Det::The);
        flight
            .attached
            .push(pp("to", np(Head::Slot("CityName".into()), Det::None)));
        happen.obliques.push(pp("to", flight));
        let clause = Clause {
            subject: None,
            verbs: vec![happen],
            modal: None,
            tense: Tense::Present,
            question: Some(Question::Wh {
                word: "what".into(),
                placement: WhPlacement::Subject,
            }),
            negated: false,
            imperative: false,
        };
        assert_eq!(text(&clause), "What happened to the flight to Boston?");
    }

    /// Fig. 5.6: a passive in the past, with and without the article.
    #[test]
    fn the_gate_was_changed() {
        let clause = |det| Clause {
            subject: Some(np(Head::Common("gate".into()), det)),
            verbs: vec![VerbNode::new("be", false), VerbNode::new("change", true)],
            modal: None,
            tense: Tense::Past,
            question: None,
            negated: false,
            imperative: false,
        };
        assert_eq!(text(&clause(Det::The)), "The gate was changed.");
        assert_eq!(text(&clause(Det::None)), "Gate was changed.");
    }

    #[test]
    fn pronoun_objects_take_object_case() {
        let mut give = VerbNode::new("give", true);
        give.objects.push(np(pronoun("I"), Det::None));
        give.objects
            .push(np(Head::Common("ticket".into()), Det::The));
        let clause = Clause {
            subject: Some(np(pronoun("she"), Det::None)),
            verbs: vec![give],
            modal: None,
            tense: Tense::Present,
            question: None,
            negated: false,
            imperative: false,
        };
        assert_eq!(text(&clause), "She gave me the ticket.");
    }

    #[test]
    fn third_person_agreement_and_do_support() {
        let clause = Clause {
            subject: Some(np(Head::Proper("Sam".into()), Det::None)),
            verbs: vec![VerbNode::new("leave", false)],
            modal: None,
            tense: Tense::Present,
            question: Some(Question::YesNo),
            negated: false,
            imperative: false,
        };
        assert_eq!(text(&clause), "Does Sam leave?");
        let clause = Clause {
            question: None,
            ..clause
        };
        assert_eq!(text(&clause), "Sam leaves.");
    }
    fn clause(subject: Option<NounPhrase>, verbs: Vec<VerbNode>) -> Clause {
        Clause {
            subject,
            verbs,
            modal: None,
            tense: Tense::Present,
            question: None,
            negated: false,
            imperative: false,
        }
    }

    /// Negation follows the first auxiliary, or takes do-support; "can not" is "cannot".
    #[test]
    fn negation() {
        let ferry = || Some(np(Head::Common("ferry".into()), Det::The));
        let mut c = clause(ferry(), vec![VerbNode::new("leave", false)]);
        c.negated = true;
        assert_eq!(text(&c), "The ferry does not leave.");
        c.verbs[0].past = true;
        assert_eq!(text(&c), "The ferry did not leave.");
        c.verbs[0].past = false;
        c.modal = Some("will".into());
        assert_eq!(text(&c), "The ferry will not leave.");
        c.modal = Some("can".into());
        assert_eq!(text(&c), "The ferry cannot leave.");
        c.question = Some(Question::YesNo);
        assert_eq!(text(&c), "Can the ferry not leave?");
        let mut gate = clause(
            Some(np(Head::Common("gate".into()), Det::The)),
            vec![VerbNode::new("be", false), VerbNode::new("close", true)],
        );
        gate.negated = true;
        assert_eq!(text(&gate), "The gate is not closed.");
    }

    #[test]
    fn commands() {
        let mut touch = VerbNode::new("touch", false);
        touch
            .objects
            .push(np(Head::Common("anvil".into()), Det::The));
        let mut c = clause(None, vec![touch]);
        c.imperative = true;
        assert_eq!(text(&c), "Touch the anvil.");
        c.negated = true;
        assert_eq!(text(&c), "Do not touch the anvil.");
    }

    /// A possessor is said before its noun with "'s"; a name after it.
    #[test]
    fn possessors_and_names() {
        let mut feed = VerbNode::new("feed", false);
        let mut horse = np(Head::Common("horse".into()), Det::None);
        horse.possessor = Some(Box::new(np(Head::Slot("Guest".into()), Det::None)));
        feed.objects.push(horse);
        let mut go = VerbNode::new("go", false);
        let mut gate = np(Head::Common("gate".into()), Det::None);
        gate.name = Some("GateNumber".into());
        go.obliques.push(pp("to", gate));
        let c = clause(Some(np(pronoun("I"), Det::None)), vec![feed]);
        assert_eq!(realise(&c).template(), "I feed {Guest}'s horse.");
        let mut c = clause(None, vec![go]);
        c.imperative = true;
        assert_eq!(realise(&c).template(), "Go to gate {GateNumber}.");
        let mut hammer = np(Head::Common("hammer".into()), Det::None);
        hammer.possessor = Some(Box::new(np(Head::Common("smith".into()), Det::The)));
        let c = clause(Some(hammer), vec![VerbNode::new("break", true)]);
        assert_eq!(text(&c), "The smith's hammer broke.");
    }
}
