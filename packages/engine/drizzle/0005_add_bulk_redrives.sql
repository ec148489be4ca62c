CREATE TABLE "bulk_redrive_items" (
	"bulk_redrive_id" bigint NOT NULL,
	"dead_letter_id" bigint NOT NULL,
	"outcome" text,
	"done_at" timestamp with time zone,
	CONSTRAINT "bulk_redrive_items_pkey" PRIMARY KEY("bulk_redrive_id","dead_letter_id"),
	CONSTRAINT "bulk_redrive_items_outcome_known" CHECK ("bulk_redrive_items"."outcome" in ('redriven', 'skipped'))
);
--> statement-breakpoint
CREATE TABLE "bulk_redrives" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"request_id" text NOT NULL,
	"filter" jsonb NOT NULL,
	"reason" text NOT NULL,
	"rate_per_second" integer NOT NULL,
	"requested_by" text NOT NULL,
	"requested_at" timestamp with time zone DEFAULT now() NOT NULL,
	"status" text DEFAULT 'running' NOT NULL,
	"total" integer NOT NULL,
	"processed" integer DEFAULT 0 NOT NULL,
	"redriven" integer DEFAULT 0 NOT NULL,
	"skipped" integer DEFAULT 0 NOT NULL,
	"cancel_requested_at" timestamp with time zone,
	"cancelled_by" text,
	"heartbeat_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone,
	CONSTRAINT "bulk_redrives_request_id_key" UNIQUE("request_id"),
	CONSTRAINT "bulk_redrives_status_known" CHECK ("bulk_redrives"."status" in ('running', 'completed', 'cancelled')),
	CONSTRAINT "bulk_redrives_counts_add_up" CHECK ("bulk_redrives"."processed" = "bulk_redrives"."redriven" + "bulk_redrives"."skipped" and "bulk_redrives"."processed" <= "bulk_redrives"."total"),
	CONSTRAINT "bulk_redrives_rate_positive" CHECK ("bulk_redrives"."rate_per_second" between 1 and 1000)
);
--> statement-breakpoint
ALTER TABLE "bulk_redrive_items" ADD CONSTRAINT "bulk_redrive_items_bulk_redrive_id_bulk_redrives_id_fk" FOREIGN KEY ("bulk_redrive_id") REFERENCES "public"."bulk_redrives"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bulk_redrive_items" ADD CONSTRAINT "bulk_redrive_items_dead_letter_id_dead_letters_id_fk" FOREIGN KEY ("dead_letter_id") REFERENCES "public"."dead_letters"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "bulk_redrives_requested_at_idx" ON "bulk_redrives" USING btree ("requested_at");