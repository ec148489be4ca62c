CREATE TABLE "api_requests" (
	"actor_id" text NOT NULL,
	"idempotency_key" text NOT NULL,
	"endpoint" text NOT NULL,
	"request_hash" text NOT NULL,
	"status" integer,
	"response_body" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone DEFAULT now() + interval '24 hours' NOT NULL,
	CONSTRAINT "api_requests_pkey" PRIMARY KEY("actor_id","idempotency_key")
);
--> statement-breakpoint
CREATE INDEX "api_requests_expires_at_idx" ON "api_requests" USING btree ("expires_at");