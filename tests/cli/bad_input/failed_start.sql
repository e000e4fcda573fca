-- what a start that failed before recording anything left (before issue 15: a bad model spec)
INSERT INTO meta VALUES ('run_id', '"failed_start"');
INSERT INTO meta VALUES ('created', '"2026-11-20T10:00:00"');
