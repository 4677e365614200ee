export const Orphans = ({ projectId }: { projectId: string }) => (
  <section>
    <h1>Orphans</h1>
    <p className="muted">Not built yet ({[projectId].join(', ')}).</p>
  </section>
);
