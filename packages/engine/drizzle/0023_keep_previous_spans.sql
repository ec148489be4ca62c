-- Each stored span is stamped with the pass that wrote it: a pass keeps the previous pass's spans for one more
-- pass, so a reader that read the list of spans just before a pass committed still finds their rows. The spans
-- held now are one pass's and take the migration's moment. The default stays for an instance of the previous
-- version still running during a rolling upgrade (it writes spans without a stamp).
ALTER TABLE "rollup_spans" ADD COLUMN "stored_at" timestamp with time zone DEFAULT now() NOT NULL;
