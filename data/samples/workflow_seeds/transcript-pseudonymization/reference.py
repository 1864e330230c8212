"""Pseudonymise the people named in a transcript with stable placeholders in order of first mention."""
import re

import wfio

prefix = wfio.params()["placeholder"]
people = wfio.table("people")
text = wfio.text("interview_transcript.txt")
forms = []
for person in people:
    for form in (person["full_name"], f"Mr. {person['last_name']}", f"Ms. {person['last_name']}", person["first_name"], person["last_name"]):
        forms.append((form, person["full_name"]))
forms.sort(key=lambda item: -len(item[0]))
pattern = re.compile("|".join(rf"\b{re.escape(form)}\b" for form, _ in forms))
owner = dict(forms)
labels, mentions = {}, {}


def replace(match):
    person = owner[match.group(0)]
    if person not in labels:
        labels[person] = f"[{prefix} {len(labels) + 1}]"
    mentions[person] = mentions.get(person, 0) + 1
    return labels[person]


wfio.write_text("transcript_pseudonymised.txt", pattern.sub(replace, text))
roles = {p["full_name"]: p["role"] for p in people}
wfio.write_csv("pseudonym_key.csv", ["placeholder", "full_name", "role", "mentions"],
               [{"placeholder": labels[n], "full_name": n, "role": roles[n], "mentions": mentions[n]} for n in labels])
