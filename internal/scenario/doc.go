// Package scenario reads and writes the scenario and result documents of
// docs/formats.md (format 1): the files `placer place` replays and the
// nova-oracle checks.
//
// Decode is as strict as the oracle's own parser
// (nova-oracle/novaoracle/scenario.py) and says what is wrong the same way,
// with a field path: hosts[17].free_ram_mb: want a number, got "12GB".
// Every error is an *engine.ValidationError. Defaults are filled in, so the
// engine and the reference implementation see complete values, and the
// uuids the oracle makes up (hosts, group) are made up the same way.
//
// ResultOf and Encode turn a placement outcome (a Plan, or a NoValidHost or
// another Nova-like error) into the result document. EncodeScenario writes a
// Scenario back as a document that decodes to the same value.
package scenario
