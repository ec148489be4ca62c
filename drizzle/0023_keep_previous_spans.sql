-- Each stored span is stamped with the pass that wrote it: a pass keeps the previous pass's spans for one more
-- pass, so a reader that read the list of spans just before a pass committed still finds their rows. The spans
-- held now are one pass's; they take the migration's moment.
ALTER TABLE "rollup_spans" ADD COLUMN "stored_at" timestamp with time zone DEFAULT now() NOT NULL;--> statement-breakpoint
ALTER TABLE "rollup_spans" ALTER COLUMN "stored_at" DROP DEFAULT;
