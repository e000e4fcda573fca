-- an evaluation's store (p2p eval writes runs/eval-*/run.db): no optimization to resume
INSERT INTO meta VALUES ('run_id', '"eval_folder"');
INSERT INTO meta VALUES ('kind', '"eval"');
INSERT INTO meta VALUES ('config', '{"suite": "tools", "task_model": "fake"}');
INSERT INTO meta VALUES ('status', '"done"');
