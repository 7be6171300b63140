#!/usr/bin/env python3
"""Storyloom content in a game from the local API (Python 3.10+, stdlib only): docs/for-game-programmers.md"""
import argparse
import json
import os
import sys
from functools import partial
from pathlib import Path
from urllib import error, parse, request

API = os.environ.get("STORYLOOM_API_URL", "http://127.0.0.1:9001").rstrip("/")
KEY = os.environ.get("STORYLOOM_API_KEY", "")
EXPORT_NAME = {"Gdd": "GDD", "Misc": "Misc", "Kanban": "Kanban", "Canvas": "Canvas",  # /events: "Script",
               "ProjectSettings": "ProjectSettings", **{c: c + "s" for c in (  # ?collections=: "Scripts"
                   "Script", "Dialogue", "Actor", "Quest", "Item", "Variable", "Scenario", "Scene", "Grid", "Map")}}
show = partial(json.dumps, ensure_ascii=False, separators=(",", ":"))  # values as JSON, the same in Node


def fetch(path, collections=None, headers=None, timeout=30.0, stream=False):
    query = "?" + parse.urlencode({"collections": ",".join(collections)}) if collections else ""
    try:
        answer = request.urlopen(request.Request(API + path + query, headers={"x-api-key": KEY, **(headers or {})}),
                                 timeout=timeout)
    except error.HTTPError as failure:  # every API error is {"error": code, "reason": text for a person}
        sys.exit(f"{path}: {failure.code} " + "{error}: {reason}".format(**json.loads(failure.read())))
    return answer if stream else json.loads(answer.read())


def find(docs, ref, kind):  # by _id or by name; folders are skipped
    found = [d for d in docs if d.get("type") != "Folder" and ref in (d["_id"], d.get("name"))]
    return found[0] if found else sys.exit(f"no {kind} {ref!r}")


def lines(args):
    script = find(fetch("/game-export", ["Scripts"])["scripts"], args.ref, "script")
    print(f"script {show(script['name'])} ({script['_id']})")
    for line in (x for x in script["content"]["lines"] if x["type"] == "speech"):
        print(f"  line {line['line']} {line['actor']}: {line['text']}  [tag {show(line['tag'])}, expression "
              f"{show(line['expression'])}]" + (f"\n    mapped: {line['mapped']}" if "mapped" in line else ""))


def walk(args):
    export = fetch("/game-export", ["Scripts", "Dialogues"])
    dialogue = find(export["dialogues"], args.ref, "dialogue")
    scripts, tree = {s["_id"]: s for s in export["scripts"]}, dialogue["content"]["tree"]
    nodes = {n["id"]: n for n in tree["nodes"]}  # edges name a node by its `id` (not `data.id`)
    handles = {(n["id"], h["id"]): h for n in tree["nodes"] for h in n["data"].get("handles", [])}
    print(f"dialogue {show(dialogue['name'])} ({dialogue['_id']})")
    queue = [n["id"] for n in tree["nodes"] if n["data"].get("nodeType") == "start"]
    for node in (nodes[node_id] for node_id in queue):  # breadth first: the queue grows as we go
        kind, script = node["data"].get("nodeType"), scripts.get(node["data"].get("scriptId"), {})
        print(f"node {node['id']} {kind} {show(node['data'].get('label', '').strip())}")
        speech = [x for x in script.get("content", {}).get("lines", []) if x["type"] == "speech"]
        print("".join(f"  {line['actor']}: {line['text']}\n" for line in speech), end="")
        for edge in (e for e in tree["edges"] if e["source"] == node["id"]):
            out = handles.get((edge["source"], edge.get("sourceHandle")), {})  # handle ids: unique per node only
            into = handles.get((edge["target"], edge.get("targetHandle")), {})
            if (out.get("type"), into.get("type")) != ("source", "target"):
                print(f"  dangling edge {edge['id']}")
                continue
            print(f"  {'choice' if kind == 'choice' else 'next'} {show(out.get('label', ''))} -> {edge['target']}")
            queue += [] if edge["target"] in queue else [edge["target"]]


def state(args):
    def merged(default, override):  # nested objects are partial overrides; scalars and arrays replace
        return {**default, **{key: merged(default[key], value) if isinstance(value, dict) and isinstance(
            default.get(key), dict) else value for key, value in override.items()}}

    export = fetch("/game-export", ["Variables", "Scenarios"])
    states = {v["content"]["variables"]["_sid"]: v["content"]["variables"] for v in export["variables"]
              if isinstance(v["content"]["variables"], dict)}  # a source that did not parse stays text
    default = states.get(args.ref) or sys.exit(f"no variable {args.ref!r}")
    scenario = find(export["scenarios"], args.scenario, "scenario") if args.scenario else None
    current = merged(default, scenario["content"]["scenario"].get(args.ref, {})) if scenario else default
    print(f"state {args.ref} (" + (f"scenario {show(scenario['name'])})" if scenario else "defaults)"))
    for key in sorted(current):
        was = "" if current[key] == default[key] else f"  (default {show(default[key])})"
        print(f"  {key} = {show(current[key])}{was}")


def validate(args):  # checks what this client reads against what the fetched schema states (see the guide)
    export = fetch("/game-export", None)
    schema = fetch("/schema-export", export["_meta"]["collections"])
    for name, value in (("export.json", export), ("schema.json", schema)) if args.save else ():
        Path(args.save, name).write_text(json.dumps(value, ensure_ascii=False), "utf-8")
    defs, meta = schema["$defs"], schema["properties"]["_meta"]["properties"]
    problems = [f"_meta.{k} is {show(export['_meta'].get(k))}, the schema says {show(meta[k]['const'])}"
                 for k in ("formatVersion", "collections") if export["_meta"].get(k) != meta[k]["const"]]
    needs = {rule["if"]["properties"]["type"]["const"]: rule["then"]["required"]  # speech: actor, text...
             for rule in defs.get("ScriptLine", {}).get("allOf", [])}
    problems += [f"script {s['_id']} line {x.get('line')}: no {show(f)}" for s in export.get("scripts", []) for x in
                 (s.get("content") or {}).get("lines", []) for f in ("type", "line", *needs.get(x.get("type"), ()))
                 if f not in x]
    known = {sid: defs[ref["$ref"].split("/")[-1]]["properties"]  # each state's properties, by _sid
             for sid, ref in defs.get("ScenarioDiff", {}).get("properties", {}).items()}
    diffs = {s["_id"]: s["content"]["scenario"] for s in export.get("scenarios", []) if s.get("type") != "Folder"}
    problems += [f"scenario {i}: {sid}.{key} is no known state property" for i, diff in diffs.items()
                 if isinstance(diff, dict) for sid, override in diff.items() for key in override
                 if key not in known.get(sid, {})]
    print(*(f"problem: {p}" for p in problems), f"{len(problems)} problems in what this client reads", sep="\n")
    sys.exit(1 if problems else 0)


def follow(args):  # hot reload: Server-Sent Events, "field: value" lines, a blank line ends an event
    def reload(event, data, event_id):  # re-fetch only the collections a change can alter
        if event in ("end", "reset"):  # end: the server stops; reset: the project was replaced: reload it all
            print(f"{event}: {data['reason']}")
            return 0
        print(f"event {event_id} {data['collection'] or '-'} {data['id']} {data['rev']}" + " deleted" * data['deleted'])
        name = EXPORT_NAME.get(data["collection"])  # None: the settings, attachments, users, design documents
        if name or data["id"] == "ProjectSettings":  # the settings (export mappings...) can change everything
            also = ["Scenarios", "Scripts"] if name == "Variables" else []  # checked against it; they use it
            export = fetch("/game-export", [name, *also] if name else None)
            names = [d.get("name") for k, v in export.items() if k != "_meta" for d in v if d["_id"] == data["id"]]
            print(f"  reloaded {','.join(export['_meta']['collections'])}" + "".join(f": {show(n)}" for n in names))
        return 1
    last, count, event, data = args.last_event_id, 0, "message", ""
    try:  # --timeout: give up after S seconds of silence (the server sends a keep-alive every 15 s)
        with fetch("/events", headers={"Last-Event-ID": last} if last else {}, timeout=args.timeout,
                   stream=True) as stream:
            print(f"connected (Last-Event-ID: {last or 'none'})", flush=True)
            for raw in stream:
                field, _, value = raw.decode("utf-8").rstrip("\r\n").partition(":")
                value = value[1:] if value.startswith(" ") else value
                event, last = (value if field == "event" else event), (value if field == "id" else last)
                data += value if field == "data" else ""
                if field == value == "" and data:
                    count += reload(event, json.loads(data), last)
                    if event == "end" or count >= (args.max_events or sys.maxsize):
                        break
                    event, data = "message", ""
    except TimeoutError:
        print("timed out")
    print(f"last-event-id {last or 'none'}", flush=True)  # give it back as --last-event-id to resume


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("command", choices=["lines", "walk", "state", "validate", "follow"])
    parser.add_argument("ref", nargs="?", help="lines: a script, walk: a dialogue (name or id); state: a _sid")
    for option, kind in dict(scenario=str, save=str, last_event_id=str, max_events=int, timeout=float).items():
        parser.add_argument("--" + option.replace("_", "-"), type=kind)  # --timeout S: S seconds of silence
    args = parser.parse_args()
    globals()[args.command](args)


if __name__ == "__main__":
    main()
