export const Sessions = ({ projectId }: { projectId: string }) => (
  <section>
    <h1>Sessions</h1>
    <p className="muted">Not built yet ({[projectId].join(', ')}).</p>
  </section>
);
