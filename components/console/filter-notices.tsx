/** The parameters a page ignored, said plainly (the one way every console page reports them). */
export function FilterNotices({ notices }: { notices: string[] }) {
  return notices.map((notice) => (
    <p key={notice} role="status" className="mb-3 rounded-md bg-warn-soft px-3 py-2 text-[13px] text-warn">
      {notice}.
    </p>
  ));
}
