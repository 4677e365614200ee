export const Monitors = ({ projectId }: { projectId: string }) => (
  <section>
    <h1>Monitors</h1>
    <p className="muted">Not built yet ({[projectId].join(', ')}).</p>
  </section>
);
