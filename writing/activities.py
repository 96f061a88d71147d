"""Writing's two activities on the studies machinery (see ``studies.activities``): a
qualified writer goes to this app's page, and the texts they sent are their answers."""

from studies.activities import Activity

SENTENCES = Activity(
    name="sentences",
    answers="sentences",  # Sentence.participant's related name
    verb="write",
    nouns=("sentence", "sentences"),
    page="write:sentences",
    preview="writing:preview",
    intro_template="writing/_intro_sentences.html",
    qualification_template="writing/_qualification_intro.html",
    actions_template="writing/_study_actions.html",
    note_template="writing/_study_note.html",
    answered_word="written",
)
ENDINGS = Activity(
    name="endings",
    answers="endings",  # Ending.participant's related name
    verb="write",
    nouns=("ending", "endings"),
    page="write:endings",
    preview="writing:preview",
    intro_template="writing/_intro_endings.html",
    qualification_template="writing/_qualification_intro.html",
    actions_template="writing/_study_actions.html",
    note_template="writing/_study_note.html",
    answered_word="written",
)
