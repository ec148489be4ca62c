CREATE TABLE "api_tokens" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"token_hash" text NOT NULL,
	"prefix" text NOT NULL,
	"scopes" text[] NOT NULL,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_used_at" timestamp with time zone,
	"revoked_at" timestamp with time zone,
	"revoked_by" text,
	CONSTRAINT "api_tokens_token_hash_key" UNIQUE("token_hash"),
	CONSTRAINT "api_tokens_scopes_known" CHECK ("api_tokens"."scopes" <@ array['ingest', 'read']::text[] and cardinality("api_tokens"."scopes") > 0)
);
--> statement-breakpoint
CREATE TABLE "people" (
	"email" text PRIMARY KEY NOT NULL,
	"display_name" text NOT NULL,
	"role" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_seen_at" timestamp with time zone,
	CONSTRAINT "people_role_known" CHECK ("people"."role" in ('viewer', 'responder', 'admin')),
	CONSTRAINT "people_email_lowercase" CHECK ("people"."email" = lower("people"."email") and "people"."email" like '%@%')
);
--> statement-breakpoint
CREATE TABLE "team_members" (
	"team" text NOT NULL,
	"email" text NOT NULL,
	CONSTRAINT "team_members_pkey" PRIMARY KEY("team","email")
);
--> statement-breakpoint
CREATE TABLE "teams" (
	"name" text PRIMARY KEY NOT NULL,
	"display_name" text NOT NULL
);
--> statement-breakpoint
ALTER TABLE "team_members" ADD CONSTRAINT "team_members_team_teams_name_fk" FOREIGN KEY ("team") REFERENCES "public"."teams"("name") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "team_members" ADD CONSTRAINT "team_members_email_people_email_fk" FOREIGN KEY ("email") REFERENCES "public"."people"("email") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "team_members_email_idx" ON "team_members" USING btree ("email");