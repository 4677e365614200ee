export const Overview = ({ projectId }: { projectId: string }) => (
  <section>
    <h1>Overview</h1>
    <p className="muted">Not built yet ({[projectId].join(', ')}).</p>
  </section>
);
