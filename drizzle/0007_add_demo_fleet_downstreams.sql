CREATE TABLE "fleet_email_outbox" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"task_id" text NOT NULL,
	"recipient" text NOT NULL,
	"subject" text NOT NULL,
	"sent_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "fleet_payment_ledger" (
	"idempotency_key" text PRIMARY KEY NOT NULL,
	"task_id" text NOT NULL,
	"amount_micros" bigint NOT NULL,
	"charged_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "fleet_publications" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"task_id" text NOT NULL,
	"page" text NOT NULL,
	"published_at" timestamp with time zone DEFAULT now() NOT NULL
);
